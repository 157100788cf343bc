import { Injectable } from '@nestjs/common';
import { Database, newId, Prisma } from '@dc/database';

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  findById(id: string) {
    return this.db.client.apiKey.findUnique({ where: { id } });
  }

  create(data: Omit<Prisma.ApiKeyUncheckedCreateInput, 'id'>) {
    return this.db.client.apiKey.create({ data: { id: newId('key'), ...data } });
  }

  update(id: string, data: Prisma.ApiKeyUncheckedUpdateInput) {
    return this.db.client.apiKey.update({ where: { id }, data });
  }
}
