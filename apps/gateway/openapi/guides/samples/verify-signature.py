import hashlib
import hmac
import json
import time


def verify_webhook(raw_body: bytes, signature_header: str, secret: str, tolerance: int = 300) -> dict:
    """Verifies a delivery's X-Service-Signature and returns the parsed event; raises when it is not
    authentic. raw_body: the exact bytes received, before any JSON parsing."""
    pairs = [part.strip().split("=", 1) for part in signature_header.split(",") if "=" in part]
    try:
        t = int(next(value for key, value in pairs if key == "t"))
    except (StopIteration, ValueError):
        raise ValueError("malformed X-Service-Signature")
    if abs(time.time() - t) > tolerance:
        raise ValueError("timestamp outside the tolerance")
    # Keyed with the UTF-8 bytes of the whole secret, whsec_ included.
    expected = hmac.new(secret.encode("utf-8"), f"{t}.".encode() + raw_body, hashlib.sha256).hexdigest()
    # While a secret rotation overlaps there is one v1 per secret: any one matching is enough.
    if not any(hmac.compare_digest(expected, value) for key, value in pairs if key == "v1"):
        raise ValueError("signature mismatch")
    return json.loads(raw_body)
