/**
 * The dependency directions of ../shared/design/ARCHITECTURE.md, checked by `npm run lint:deps` (part of `npm test`).
 * dependency-cruiser rather than hand-written checks: it resolves TypeScript paths the way tsc does and reports the
 * whole chain of a cycle.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make module order matter and hide layering mistakes.',
      from: { path: '^(server|contract|client)/' },
      to: { circular: true },
    },
    {
      name: 'contract-imports-nothing-of-ours',
      severity: 'error',
      comment: 'contract/ is shared by the server, the client and the OpenAPI document: it depends only on libraries.',
      from: { path: '^contract/' },
      to: { path: '^(server|client|openapi|test|bench|examples)/' },
    },
    {
      name: 'client-never-imports-server',
      severity: 'error',
      comment: 'The SDK ships to callers; it knows the contract, never the server.',
      from: { path: '^client/' },
      to: { path: '^(server|openapi|test|bench|examples)/' },
    },
    {
      name: 'client-package-stands-alone',
      comment:
        '@agentlink/client (client/src) is published on its own: besides itself it may use only contract/ (bundled into its build): no package, no Node built-in.',
      severity: 'error',
      from: { path: '^client/src/' },
      to: { pathNot: '^(client/src/|contract/)' },
    },
    {
      name: 'react-package-stands-alone',
      comment:
        '@agentlink/react (client/react/src) imports React and the connect protocol (contract/link-messages.ts, bundled), nothing else.',
      severity: 'error',
      from: { path: '^client/react/src/' },
      to: { pathNot: '^(client/react/src/|contract/link-messages\\.ts$|node_modules/(react|@types/react)/)' },
    },
    {
      name: 'widget-page-code-imports-types-only',
      severity: 'error',
      comment:
        "The connect widget's page code (server/connect/widget/page/, bundled for the browser) uses the server's shapes as types only: a value import would bundle server code (Node, zod) into /link/widget.js. Values: its own modules and contract/link-messages.ts.",
      from: { path: '^server/connect/widget/page/' },
      to: {
        path: '^(server|contract)/',
        pathNot: '^(server/connect/widget/page/|contract/link-messages\\.ts$)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'core-never-imports-integrations',
      severity: 'error',
      comment: 'Integrations plug into the core at the composition root (server/services.ts); the core never names one.',
      from: { path: '^server/(domain|providers|agent|connect|store|vault|http|routes|browser|mcp)/' },
      to: { path: '^server/integrations/' },
    },
    {
      name: 'domain-and-providers-never-import-the-sandbox-kit',
      severity: 'error',
      comment: 'domain/ reaches the simulated sites only through the SandboxSites interface it is given.',
      from: { path: '^server/(domain|providers)/' },
      to: { path: '^server/sandbox/' },
    },
    {
      name: 'sandbox-kit-stands-alone',
      severity: 'error',
      comment: 'The kit the simulated sites are built with knows nothing of the service it is hosted in (only the store).',
      from: { path: '^server/sandbox/' },
      to: { path: '^server/(domain|providers|integrations|agent|connect|http|routes|dashboard)/' },
    },
    {
      name: 'domain-never-imports-delivery',
      severity: 'error',
      comment: 'Services hold the rules; HTTP, routes, the dashboard, the widget, the MCP tools and the CLI call them, never the reverse.',
      from: { path: '^server/domain/' },
      to: { path: '^(server/(http|routes|dashboard|connect|mcp|cli)/|node_modules/(express|@ts-rest/express|@modelcontextprotocol)/)' },
    },
    {
      name: 'agent-never-imports-domain',
      severity: 'error',
      comment:
        'The agent states what it needs of the services in domain/ as small interfaces of its own (server/agent/ports.ts: ' +
        'Clock, RunConnections, QueueSignals, ScheduledChecks); the composition root (server/services.ts, ' +
        'server/agent/worker/runtime.ts, server/agent/health/index.ts) hands the services in. Type-only imports count too: no exceptions.',
      from: { path: '^server/agent/' },
      to: { path: '^server/domain/' },
    },
    {
      name: 'domain-never-imports-agent',
      severity: 'error',
      comment:
        'domain/ states what it needs of the agent as interfaces of its own (AgentRequestQueue and NamedPlaybookCheck in ' +
        'agent-requests.service.ts, ProviderActions in provider-actions.service.ts, SessionProbe in ' +
        'connection-health.service.ts); server/services.ts wires the agent in. Type-only imports count too: no exceptions.',
      from: { path: '^server/domain/' },
      to: { path: '^server/agent/' },
    },
    {
      name: 'egress-stands-low',
      severity: 'error',
      comment: 'The egress policy (server/egress/) is asked by domain/, agent/ and connect/; it knows only the provider declaration type.',
      from: { path: '^server/egress/' },
      to: { path: '^server/(domain|agent|connect|http|routes|dashboard|integrations|sandbox|store|browser)/' },
    },
    {
      name: 'store-never-imports-services',
      severity: 'error',
      comment: 'The store is the bottom layer: entities, repositories, migrations.',
      from: { path: '^server/store/' },
      to: { path: '^server/(domain|agent|connect|http|routes|dashboard|integrations|sandbox|providers)/' },
    },
    {
      name: 'agent-run-pieces-know-no-worker',
      severity: 'error',
      comment:
        'server/agent/worker/ runs runs (claims, opens and closes contexts, keeps warm ones, notices a lost browser); the rest ' +
        'of the agent says what one run is and how a strategy works, and names the worker only in types. The health ' +
        'scheduler is the other composition root of the agent and may use it.',
      from: { path: '^server/agent/', pathNot: '^server/agent/(worker|health)/' },
      to: { path: '^server/agent/worker/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'agent-replay-sits-above-tools-and-playbooks',
      severity: 'error',
      comment:
        'Replay finds again what the tools and the planner recorded: it builds on them, never the reverse. What both need ' +
        '(how an element is described) lives lower, in observation/.',
      from: { path: '^server/agent/(run|tools|playbooks|observation|tabs|handoff|model|result|queue)/' },
      to: { path: '^server/agent/replay/' },
    },
    {
      name: 'agent-worker-reaches-strategies-through-their-index',
      severity: 'error',
      comment: 'The worker tries playbooks, then strategies/ (replay, then the planner): it never calls replay or the planner itself.',
      from: { path: '^server/agent/worker/' },
      to: { path: '^server/agent/(replay|planner)/' },
    },
    {
      name: 'agent-observation-stands-low',
      severity: 'error',
      comment: 'How a page is seen (observation/) is used by every strategy and tool; it depends on none of them.',
      from: { path: '^server/agent/observation/' },
      to: { path: '^server/agent/', pathNot: '^server/agent/observation/' },
    },
    {
      name: 'page-code-imports-only-page-code',
      severity: 'error',
      comment:
        'Code that runs in a browser page (*.page.ts, bundled by server/page-code/) uses only other page modules; from the rest it takes types alone.',
      from: { path: '\\.page\\.ts$' },
      to: { pathNot: '\\.page\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
