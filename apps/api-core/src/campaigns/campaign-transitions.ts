import { AppError, CampaignStatus, ErrorCode } from '@dc/contracts';

/**
 * Legal campaign moves (spec: Campaign status; docs/adr/0013): draft → scheduled → active;
 * active ↔ paused; active → completed; any status but archived → archived. Nothing leaves archived.
 */
export const CAMPAIGN_TRANSITIONS: Readonly<Record<CampaignStatus, readonly CampaignStatus[]>> = {
  draft: ['scheduled', 'archived'],
  scheduled: ['active', 'archived'],
  active: ['paused', 'completed', 'archived'],
  paused: ['active', 'archived'],
  completed: ['archived'],
  archived: [],
};

export function canTransitionCampaign(from: string, to: CampaignStatus): boolean {
  return (CAMPAIGN_TRANSITIONS[from as CampaignStatus] ?? []).includes(to);
}

export function assertCampaignTransition(from: string, to: CampaignStatus): void {
  if (!canTransitionCampaign(from, to)) {
    const legal = CAMPAIGN_TRANSITIONS[from as CampaignStatus] ?? [];
    throw new AppError(
      ErrorCode.InvalidStateTransition,
      `A ${from} campaign cannot move to ${to}${legal.length ? `; it can move to: ${legal.join(', ')}` : '; it is final'}.`,
    );
  }
}
