import { CAMPAIGN_STATUSES, CampaignStatus, ErrorCode } from '@dc/contracts';
import { assertCampaignTransition, canTransitionCampaign } from './campaign-transitions';

const LEGAL: [CampaignStatus, CampaignStatus][] = [
  ['draft', 'scheduled'],
  ['scheduled', 'active'],
  ['active', 'paused'],
  ['paused', 'active'],
  ['active', 'completed'],
  ['draft', 'archived'],
  ['scheduled', 'archived'],
  ['active', 'archived'],
  ['paused', 'archived'],
  ['completed', 'archived'],
];

describe('campaign transitions', () => {
  const all = CAMPAIGN_STATUSES.flatMap((from) => CAMPAIGN_STATUSES.map((to) => [from, to] as [CampaignStatus, CampaignStatus]));

  it.each(all)('%s → %s', (from, to) => {
    const legal = LEGAL.some(([f, t]) => f === from && t === to);
    expect(canTransitionCampaign(from, to)).toBe(legal);
    if (legal) expect(() => assertCampaignTransition(from, to)).not.toThrow();
    else expect(() => assertCampaignTransition(from, to)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidStateTransition }));
  });

  it('an unknown stored status moves nowhere', () => {
    expect(canTransitionCampaign('weird', 'archived')).toBe(false);
  });
});
