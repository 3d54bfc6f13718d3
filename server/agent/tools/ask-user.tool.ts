import { z } from 'zod';

import { providerName } from '../handoff/run-handoff';
import type { UserActionReason } from '../handoff/user-ask';
import { pageTool } from './page-tool';

/**
 * The planner's way to bring the person in: a step only they can do (a code the site sent them, a captcha, approving
 * the sign-in on their phone, a consent screen). The run pauses NEEDS_USER and resumes on this page once they press
 * Done. What the person reads is ours, per reason, never the model's words: a page that steers the model must not
 * get to speak to the user in AgentLink's own widget (the model's note goes to the trace only).
 */
const REASONS = ['CODE', 'CAPTCHA', 'DEVICE_APPROVAL', 'OTHER'] as const;

export function askUserMessage(reason: UserActionReason, provider: string): string {
  switch (reason) {
    case 'CODE':
      return `${provider} asks for a code that only you can give. Enter it on the page, then press Done.`;
    case 'CAPTCHA':
      return `${provider} wants to check that you are a person. Finish the check on the page, then press Done.`;
    case 'DEVICE_APPROVAL':
      return `${provider} waits for you to approve this on your phone or another device. Approve it there, then press Done.`;
    default:
      return `${provider} shows a step that only you can do. Finish it on the page, then press Done.`;
  }
}

export const askUserTool = pageTool({
  name: 'ask_user',
  description:
    'Hand the page to the user for a step only they can do: a code the site sent them (CODE), a captcha or "are you human" check ' +
    '(CAPTCHA), approving the sign-in on another device (DEVICE_APPROVAL), or another personal step such as re-consenting (OTHER). ' +
    'The run waits until they are done, then you continue on the same page. Never use it to ask for information you could find ' +
    'on the page, and never for approval to act: that is not yours to ask.',
  params: z
    .object({
      reason: z.enum(REASONS),
      note: z.string().min(1).max(300).describe('What the step is, for the trace (not shown to the user).'),
    })
    .strict(),
  // It changes nothing itself: what the person does on the page is theirs.
  writes: false,
  describe: (step) => `ask the user (${String(step.args.reason)})`,
  // A replay asks the person again, for the same reason: a code or a captcha is never the same twice. The model's note
  // is not recorded (it was for that run's trace); the replay's says where the step came from.
  replay: {
    target: 'none',
    args: async (recorded) => ({ ...recorded, note: 'the recorded run asked the user at this step' }),
  },
  async execute(args, tc) {
    const reason = args.reason as (typeof REASONS)[number];
    await tc.run.needsUser({ reason, message: askUserMessage(reason, providerName(tc.run.provider)) });
    return { message: `the user finished the step (${reason}); observe the page again`, record: { reason } };
  },
});
