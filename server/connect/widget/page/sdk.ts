import { LINK_MESSAGE_TYPES, type LinkEventName, type LinkMessage } from '../../../../contract/link-messages';
import { state, target, type WidgetMetadata } from './state';

type Message<T extends LinkMessage['type']> = Extract<LinkMessage, { type: T }>;
type WithWidgetMetadata<M> = Omit<M, 'metadata'> & { metadata: WidgetMetadata };

/** What the widget posts to the SDK (contract/link-messages.ts); an event's or exit's metadata may hold nulls. */
export type WidgetMessage =
  | Message<typeof LINK_MESSAGE_TYPES.ready>
  | Message<typeof LINK_MESSAGE_TYPES.success>
  | WithWidgetMetadata<Message<typeof LINK_MESSAGE_TYPES.event>>
  | WithWidgetMetadata<Message<typeof LINK_MESSAGE_TYPES.exit>>;

/** Posts to the SDK: only to the origin that sent agentlink:init, and nothing before it. */
export function post(message: WidgetMessage): void {
  if (!target || !state.origin) return;
  try {
    target.postMessage(message, state.origin);
  } catch {
    /* the opener went away */
  }
}

/** What is known of the link session, for the SDK. */
export function metadata(extra?: WidgetMetadata): WidgetMetadata {
  const v = state.view;
  const m: WidgetMetadata = {
    linkSessionId: v ? v.linkSessionId : null,
    providerId: v && v.provider ? v.provider.providerId : null,
    providerName: v && v.provider ? v.provider.name : null,
  };
  if (v && v.userAction) m.agentRequestId = v.userAction.agentRequestId;
  return Object.assign(m, extra || {});
}

export function emit(eventName: LinkEventName, extra?: WidgetMetadata): void {
  post({ type: LINK_MESSAGE_TYPES.event, eventName, metadata: metadata(extra) });
}
