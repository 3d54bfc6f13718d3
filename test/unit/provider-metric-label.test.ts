import { AppMetrics, providerMetricLabel } from '../../server/observability/metrics';

/** The provider label of agent-run metrics: readable slugs, and a bounded number of series whatever organizations declare. */
describe('providerMetricLabel', () => {
  it('labels built-in and operator providers by slug, every organization provider as one value, a missing one as unknown', () => {
    expect(providerMetricLabel({ slug: 'orbit' })).toBe('orbit');
    expect(providerMetricLabel({ slug: 'intranet', source: 'operator' })).toBe('intranet');
    expect(providerMetricLabel({ slug: 'acme-helpdesk', source: 'organization' })).toBe('organization');
    expect(providerMetricLabel(undefined)).toBe('unknown');
  });

  it('keeps the series bounded when a thousand organizations each run their own provider', async () => {
    const metrics = new AppMetrics({});
    for (let i = 0; i < 1000; i++) {
      const provider = providerMetricLabel({ slug: `org-site-${i}`, source: 'organization' });
      metrics.observeAgentRequest({ status: 'COMPLETED', method: 'PLANNER', provider }, 1);
    }
    metrics.observeAgentRequest({ status: 'COMPLETED', method: 'PLANNER', provider: providerMetricLabel({ slug: 'orbit' }) }, 1);
    const counts = (await metrics.registry.getSingleMetric('agentlink_agent_request_duration_seconds')!.get()).values.filter(
      (v) => (v as { metricName?: string }).metricName === 'agentlink_agent_request_duration_seconds_count',
    );
    expect(counts.map((v) => [v.labels.provider, v.value]).sort()).toEqual([
      ['orbit', 1],
      ['organization', 1000],
    ]);
  });
});
