import type { AgentRequestError } from '../../store';
import type { ActionScore } from '../playbooks/action-index';
import type { RouteProblem } from '../playbooks/registry';
import type { ExecutionMethod } from '../run/context';

/**
 * The error of a request that nothing ran (no playbook fit, no replay was recorded, no model is configured),
 * built from what each way found. It says what really happened: the playbook that matched and the parameter it
 * lacked (PLAYBOOK_PARAMETERS_MISSING, naming parameters.text), the playbook that matched but writes while the
 * request is read-only, or the closest actions with their scores when none matched well enough; never "nothing
 * matched" when something did. Every variant says how to configure a model and where the catalogue is.
 */
export interface Skipped {
  method: ExecutionMethod;
  reason: string;
  /** The playbook router's RouteProblem, for the playbook strategies. */
  details?: unknown;
}

const MODEL_HOWTO =
  'Configure a model for the planner with AGENTLINK_MODEL_BASE_URL (an OpenAI-compatible endpoint such as https://api.openai.com/v1), ' +
  'AGENTLINK_MODEL (e.g. gpt-4o-mini) and AGENTLINK_MODEL_API_KEY, then restart AgentLink.';

const isProblem = (d: unknown): d is RouteProblem => !!d && typeof d === 'object' && typeof (d as { kind?: unknown }).kind === 'string';

const scores = (closest: ActionScore[]) => closest.map((c) => `${c.name} ${c.score.toFixed(2)}`).join(', ');

export function explainNothingRan(input: { skipped: Skipped[]; provider: { providerId: string; name: string } }): AgentRequestError {
  const { skipped, provider } = input;
  const problems = skipped.filter((s) => s.method === 'PLAYBOOK').map((s) => s.details);
  const catalogue = `/api/providers/${provider.providerId}/actions`;
  const model = { configure: ['AGENTLINK_MODEL_BASE_URL', 'AGENTLINK_MODEL', 'AGENTLINK_MODEL_API_KEY'], howTo: MODEL_HOWTO };
  const base = { skipped: skipped.map(({ method, reason }) => ({ method, reason })), catalogue, model };

  const parameters = problems.find((p): p is Extract<RouteProblem, { kind: 'parameters' }> => isProblem(p) && p.kind === 'parameters');
  if (parameters) {
    const missing = parameters.issues.map((i) => i.path);
    const what =
      parameters.code === 'PLAYBOOK_PARAMETERS_MISSING'
        ? `it needs ${missing.join(', ')}, which neither parameters nor the action gives`
        : `${parameters.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
    return {
      code: parameters.code,
      message:
        `The action matches ${parameters.playbook}${parameters.score === undefined ? '' : ` (score ${parameters.score.toFixed(2)})`}, but ${what}. ` +
        `Pass ${missing.length === 1 ? 'it' : 'them'} in parameters (or write ${missing.length === 1 ? 'it' : 'them'} in the action), ` +
        `or name the playbook explicitly; the catalogue at GET ${catalogue} lists its parameters. Without a model nothing else can run it. ${MODEL_HOWTO}`,
      details: { playbook: parameters.playbook, missing, issues: parameters.issues, ...base },
    };
  }

  const readOnly = problems.find((p): p is Extract<RouteProblem, { kind: 'read-only' }> => isProblem(p) && p.kind === 'read-only');
  if (readOnly) {
    return {
      code: 'MODEL_NOT_CONFIGURED',
      message:
        `The action matches ${readOnly.playbook}, which changes things on ${provider.name}, and this request has mode read; ` +
        `send it with mode read_write to run it. No other way could run it without a model. ${MODEL_HOWTO}`,
      details: { playbook: readOnly.playbook, ...base },
    };
  }

  // A playbook matched but could not serve the request (its run said so: e.g. the responseFormat asks for what it does not read).
  const refused = skipped.find((s) => s.method === 'PLAYBOOK' && !isProblem(s.details));
  if (refused) {
    return {
      code: 'MODEL_NOT_CONFIGURED',
      message: `A playbook matches the action but cannot serve this request (${refused.reason}); no replay covers it and no model is configured. ${MODEL_HOWTO}`,
      details: base,
    };
  }

  const ranked = problems.find(
    (p): p is Extract<RouteProblem, { kind: 'no-match' | 'ambiguous' }> =>
      isProblem(p) && (p.kind === 'no-match' || p.kind === 'ambiguous'),
  );
  if (ranked) {
    const closest = ranked.closest;
    const why =
      ranked.kind === 'ambiguous'
        ? `the action matches ${closest
            .slice(0, 2)
            .map((c) => c.name)
            .join(' and ')} about equally well (${scores(closest)}); name one with "playbook"`
        : closest.length
          ? `no action of ${provider.name} matches it closely enough (closest: ${scores(closest)}; a playbook needs ${ranked.threshold})`
          : `no action of ${provider.name} shares its words`;
    return {
      code: 'MODEL_NOT_CONFIGURED',
      message: `Nothing ran: ${why}, no replay was recorded for it, and no model is configured. See GET ${catalogue} for what runs without a model. ${MODEL_HOWTO}`,
      details: { closest, threshold: ranked.threshold, ...base },
    };
  }

  return {
    code: 'MODEL_NOT_CONFIGURED',
    message: `No playbook of ${provider.name} and no recorded replay covers this action, and no model is configured for the planner. ${MODEL_HOWTO}`,
    details: base,
  };
}
