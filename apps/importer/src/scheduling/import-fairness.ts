import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { IMPORTS_QUEUE, ImportJob } from '@dc/contracts';
import type { Queue } from 'bullmq';

/**
 * Fair shares of the importer fleet across organizations (docs/adr/0043). Jobs carry a priority:
 * their place among their organization's unfinished imports, so each organization's oldest import
 * comes before any organization's second. A running import looks at the head of the queue after
 * each chunk: when another organization's job waits there with a place no later than its own, it
 * yields — the other tenant waits at most about one chunk.
 */
@Injectable()
export class ImportFairness {
  constructor(@InjectQueue(IMPORTS_QUEUE) private readonly queue: Queue<ImportJob>) {}

  /** Whether another organization's import waits, placed no later than `priority`. */
  async anotherOrganizationWaits(organizationId: string, priority: number): Promise<boolean> {
    const [head] = await this.queue.getPrioritized(0, 0);
    if (!head) return false;
    return head.data.organizationId !== organizationId && (head.opts.priority ?? 0) <= priority;
  }
}
