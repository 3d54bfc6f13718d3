import { gatheredWake } from '../../server/agent/queue/pg-wake-channel';

/**
 * The queues' NOTIFY to other processes (pg-wake-channel.ts): the first wake of a quiet spell is sent at once, a burst
 * after it costs one more, sent as the gathering time ends, and nothing owed is ever dropped.
 */
describe('gatheredWake', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends a lone wake at once, and nothing after it', () => {
    const send = jest.fn();
    const w = gatheredWake(send, 20);
    w.wake();
    expect(send).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('gathers the wakes of a burst into one more, sent when the gathering time ends', () => {
    const send = jest.fn();
    const w = gatheredWake(send, 20);
    for (let i = 0; i < 40; i++) w.wake();
    expect(send).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(19);
    expect(send).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1);
    expect(send).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('keeps gathering while a burst goes on, and sends at once again after a quiet spell', () => {
    const send = jest.fn();
    const w = gatheredWake(send, 20);
    w.wake(); // sent
    jest.advanceTimersByTime(10);
    w.wake(); // owed
    jest.advanceTimersByTime(10); // sent: the owed one
    expect(send).toHaveBeenCalledTimes(2);
    w.wake(); // inside the new window: owed
    jest.advanceTimersByTime(20);
    expect(send).toHaveBeenCalledTimes(3);
    jest.advanceTimersByTime(20); // the window closes with nothing owed
    w.wake();
    expect(send).toHaveBeenCalledTimes(4);
  });

  it('sends a wake still owed when stopped, and nothing once stopped with none owed', () => {
    const send = jest.fn();
    const w = gatheredWake(send, 20);
    w.wake();
    w.wake();
    w.stop();
    expect(send).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(100);
    expect(send).toHaveBeenCalledTimes(2);
    w.stop();
    expect(send).toHaveBeenCalledTimes(2);
  });
});
