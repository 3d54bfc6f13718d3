import { deviceForBrowser, deviceIdentity } from '../../browser/device-identity';
import type { DeviceProfile } from '../../browser/device-profile';
import { contextStorageState, type ProviderSession } from '../../browser/session-format';
import type { FenceOptions } from '../../egress/fenced-context';
import type { RequestSigner } from '../../egress/request-signing';
import type { UpstreamProxy } from '../../egress/upstream-proxy';
import type { ConnectionRecord } from '../../store';
import { BrowserUnavailable } from './browser-loss';
import type { WorkerDeps } from './deps';

/**
 * The device the run presents: the connection's, reporting this browser's version; one drawn now for a connection
 * made before devices existed (or whose browser was upgraded), stored at once so the next run presents the same.
 */
export async function deviceForRun(
  deps: Pick<WorkerDeps, 'browsers'> & { connections: Pick<WorkerDeps['connections'], 'deviceOf' | 'keepDevice'> },
  connection: ConnectionRecord,
): Promise<DeviceProfile | null> {
  const stored = deps.connections.deviceOf(connection);
  let device: DeviceProfile | null;
  try {
    device = await deviceForBrowser(deps.browsers, stored, connection.id);
  } catch (err) {
    throw new BrowserUnavailable(err); // asking the version starts the browser: it is not there
  }
  if (device && device !== stored) {
    // The choice is a function of the connection and the version: a run that fails to store it (the database is away; the
    // run's own writes will say so) is followed by one that draws the same device.
    await deps.connections.keepDevice(connection.id, device).catch(() => undefined);
  }
  return device;
}

/**
 * How every context that carries a connection's session is presented: an agent run's, and a health check's
 * (server/agent/health/), so the provider sees the same device, leaving through the same exit, whichever comes.
 */
export function sessionFence(
  device: DeviceProfile | null,
  exitProxy: UpstreamProxy | null,
  session: ProviderSession | null,
  providerOrigin: (origin: string) => boolean,
  signer: RequestSigner | null = null,
): Pick<FenceOptions, 'identity' | 'upstreamProxy' | 'options' | 'signer'> {
  return {
    ...(device ? { identity: deviceIdentity(device) } : {}),
    ...(exitProxy ? { upstreamProxy: exitProxy } : {}),
    ...(signer ? { signer } : {}),
    options: {
      ...(device ? {} : { viewport: { width: 1280, height: 900 }, locale: 'en-US' }),
      ...(session ? { storageState: contextStorageState(session, providerOrigin) } : {}),
    },
  };
}
