import type { AgentLinkEnv } from '@agentlink/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './App';

// AgentLink's address comes from the relay (it fills the meta tag); env, user and provider from the query:
// /?env=production&user=alice&providerId=5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11
const backendUrl = document.querySelector<HTMLMetaElement>('meta[name="agentlink-base-url"]')?.content || 'http://localhost:4000';
const query = new URLSearchParams(window.location.search);
const env: AgentLinkEnv = query.get('env') === 'production' ? 'production' : 'sandbox';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App
      backendUrl={backendUrl}
      env={env}
      clientUserId={query.get('user') || 'demo-user'}
      providerId={query.get('providerId') || undefined}
    />
  </StrictMode>,
);
