import { Injectable } from '@nestjs/common';
import {
  apiKeyDisplayPrefix, ApiKeyView, AppError, CreateApiKeyDto, CreatedApiKeyView, generateApiKey, hashApiKey,
  normaliseScopes, UpdateApiKeyDto,
} from '@dc/contracts';
import { AuthInvalidator } from '../auth/auth-invalidator';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { PortfolioSelection } from '../portfolios/portfolio-selection';
import { ApiKeysRepository } from './api-keys.repository';

/** Sandbox (test) keys live at most 30 days (spec: Limits). */
const TEST_KEY_LIFETIME_MS = 30 * 24 * 3600 * 1000;

interface ApiKeyRow {
  id: string;
  organizationId: string;
  name: string;
  keyPrefix: string;
  stage: string;
  scopes: string[];
  portfolioIds: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    keyPrefix: row.keyPrefix,
    stage: row.stage,
    scopes: row.scopes,
    portfolioIds: row.portfolioIds,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly selection: PortfolioSelection,
    private readonly invalidator: AuthInvalidator,
  ) {}

  async create(organizationId: string, input: CreateApiKeyDto): Promise<CreatedApiKeyView> {
    const organization = await this.organizations.findById(organizationId);
    if (!organization) throw AppError.notFound('organization');
    const stage = organization.sandbox ? 'test' : 'live';
    const portfolioIds = await this.selection.ofOrganization(organizationId, input.portfolioIds ?? []);
    const key = generateApiKey(stage);
    const row = await this.keys.create({
      organizationId,
      name: input.name ?? 'API key',
      keyPrefix: apiKeyDisplayPrefix(key),
      keyHash: hashApiKey(key),
      stage,
      scopes: normaliseScopes(input.scopes),
      portfolioIds,
      expiresAt: this.expiry(stage, input.expiresAt),
    });
    return { ...toView(row), key };
  }

  async update(id: string, input: UpdateApiKeyDto): Promise<ApiKeyView> {
    const existing = await this.keys.findById(id);
    if (!existing) throw AppError.notFound('API key');
    const row = await this.keys.update(id, {
      ...(input.scopes ? { scopes: normaliseScopes(input.scopes) } : {}),
      ...(input.portfolioIds ? { portfolioIds: await this.selection.ofOrganization(existing.organizationId, input.portfolioIds) } : {}),
      ...(input.expiresAt ? { expiresAt: this.expiry(existing.stage, input.expiresAt, existing.createdAt) } : {}),
    });
    await this.invalidator.organizationChanged(row.organizationId);
    return toView(row);
  }

  async revoke(id: string): Promise<ApiKeyView> {
    const existing = await this.keys.findById(id);
    if (!existing) throw AppError.notFound('API key');
    const row = existing.revokedAt ? existing : await this.keys.update(id, { revokedAt: new Date() });
    await this.invalidator.organizationChanged(row.organizationId);
    return toView(row);
  }

  /** Test keys never outlive 30 days from creation; live keys expire only when asked to. */
  private expiry(stage: string, requested: string | undefined, createdAt = new Date()): Date | null {
    const asked = requested ? new Date(requested) : null;
    if (stage !== 'test') return asked;
    const cap = new Date(createdAt.getTime() + TEST_KEY_LIFETIME_MS);
    return asked && asked < cap ? asked : cap;
  }
}
