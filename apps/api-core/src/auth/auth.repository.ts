import { Injectable } from '@nestjs/common';
import { Database } from '@dc/database';

@Injectable()
export class AuthRepository {
  constructor(private readonly db: Database) {}

  findKeyByHash(keyHash: string) {
    return this.db.client.apiKey.findUnique({
      where: { keyHash },
      include: { organization: { select: { id: true, name: true, status: true } } },
    });
  }

  findKeyById(id: string) {
    return this.db.client.apiKey.findUnique({
      where: { id },
      include: { organization: { select: { id: true, name: true, status: true } } },
    });
  }
}
