import { Module } from '@nestjs/common';
import { ImportsHandlers } from './imports.handlers';
import { ImportsRepository } from './imports.repository';
import { ImportsService } from './imports.service';

/** The portfolio load flow's API side (docs/imports.md): upload places, enqueue, poll; apps/importer loads the files. */
@Module({
  controllers: [ImportsHandlers],
  providers: [ImportsService, ImportsRepository],
})
export class ImportsModule {}
