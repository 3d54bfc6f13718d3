import { ModelBadResponseError, ModelError } from '../result/errors';
import { runNow } from '../run/clock';

/**
 * A minimal client for an OpenAI-compatible Chat Completions endpoint with tool calling
 * (POST {baseUrl}/chat/completions). Plain fetch: no SDK, so any compatible server works (OpenAI, Azure
 * OpenAI behind a proxy, vLLM, Ollama, LiteLLM …). Counts calls and tokens for the request record.
 */
export interface ModelConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export type ToolChoice = 'auto' | 'required' | 'none' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** Cancels the call (the run's signal). */
  signal?: AbortSignal;
  /** The call never runs past this instant (epoch ms), whatever the configured timeout. */
  deadline?: number;
}

export interface ChatReply {
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] };
  finishReason: string | null;
}

export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const MAX_ERROR_BODY = 300;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class ChatClient {
  readonly usage: UsageTotals = { calls: 0, promptTokens: 0, completionTokens: 0 };
  private readonly fetchImpl: typeof fetch;
  private readonly retries: number;

  constructor(
    private readonly config: ModelConfig,
    opts: { fetch?: typeof fetch; retries?: number } = {},
  ) {
    this.fetchImpl = opts.fetch ?? fetch;
    this.retries = opts.retries ?? 1;
  }

  async complete(req: ChatRequest): Promise<ChatReply> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(req);
      } catch (err) {
        const retry =
          attempt < this.retries &&
          err instanceof ModelError &&
          (err.status === undefined ? !/did not answer/.test(err.message) : RETRYABLE_STATUS.has(err.status)) &&
          !req.signal?.aborted &&
          (req.deadline === undefined || req.deadline - runNow() > 1_000);
        if (!retry) throw err;
        await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
      }
    }
  }

  private async once(req: ChatRequest): Promise<ChatReply> {
    const budget = Math.max(1, Math.min(this.config.timeoutMs, req.deadline === undefined ? Infinity : req.deadline - runNow()));
    const timeout = AbortSignal.timeout(budget);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const body = {
      model: this.config.model,
      messages: req.messages,
      ...(req.tools?.length ? { tools: req.tools, tool_choice: req.toolChoice ?? 'auto' } : {}),
    };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;

    this.usage.calls += 1;
    let text: string;
    let status: number;
    try {
      const res = await this.fetchImpl(`${this.config.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal,
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      if (timeout.aborted) throw new ModelError(`the model did not answer within ${budget} ms`, undefined, { cause: err });
      throw new ModelError(`could not reach the model endpoint: ${(err as Error)?.message ?? String(err)}`, undefined, { cause: err });
    }
    if (status < 200 || status >= 300) throw new ModelError(`the model endpoint answered HTTP ${status}: ${errorText(text)}`, status);

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ModelBadResponseError(`the model endpoint answered with something that is not JSON: ${snippet(text)}`, { cause: err });
    }
    return this.parse(json);
  }

  private parse(json: unknown): ChatReply {
    if (!isObject(json)) throw new ModelBadResponseError('the model endpoint answered JSON that is not a chat completion object');
    if (isObject(json.error))
      throw new ModelError(`the model endpoint answered an error: ${snippet(String(json.error.message ?? 'unknown error'))}`);
    const usage = json.usage;
    if (isObject(usage)) {
      if (typeof usage.prompt_tokens === 'number') this.usage.promptTokens += usage.prompt_tokens;
      if (typeof usage.completion_tokens === 'number') this.usage.completionTokens += usage.completion_tokens;
    }
    const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
    if (!isObject(choice) || !isObject(choice.message)) throw new ModelBadResponseError('the chat completion has no choices[0].message');
    const m = choice.message;
    if (m.content !== undefined && m.content !== null && typeof m.content !== 'string')
      throw new ModelBadResponseError('message.content is neither a string nor null');
    let toolCalls: ToolCall[] | undefined;
    if (m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) throw new ModelBadResponseError('message.tool_calls is not an array');
      toolCalls = m.tool_calls.map((tc, i) => {
        if (!isObject(tc) || !isObject(tc.function) || typeof tc.function.name !== 'string') {
          throw new ModelBadResponseError(`tool_calls[${i}] has no function name`);
        }
        const args = tc.function.arguments;
        return {
          id: typeof tc.id === 'string' && tc.id ? tc.id : `call_${i}`,
          type: 'function' as const,
          function: { name: tc.function.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
        };
      });
    }
    return {
      message: {
        role: 'assistant',
        content: (m.content as string | null | undefined) ?? null,
        ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
      },
      finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    };
  }
}

function snippet(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_ERROR_BODY ? `${t.slice(0, MAX_ERROR_BODY)}…` : t || '(empty body)';
}

/** The provider's own error message when the body is the usual {error: {message}}, else a bounded snippet. */
function errorText(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string };
    const msg = typeof j.error === 'string' ? j.error : j.error?.message;
    if (typeof msg === 'string' && msg) return snippet(msg);
  } catch {
    /* not JSON */
  }
  return snippet(text);
}
