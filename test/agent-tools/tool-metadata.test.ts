import type { ElementDescriptor } from '../../server/agent/observation/element-descriptor';
import { describeStep, type TrajectoryStep } from '../../server/agent/replay/trajectory';
import { PAGE_TOOLS, pageToolNamed, parseToolCall, stepWrites, type ToolContext } from '../../server/agent/tools';

/**
 * What each tool declares for the loop and the replay (server/agent/tools/page-tool.ts): whether a step writes, how it
 * reads, how it is replayed. The loop, the trajectory and the replayer ask the declaration, never a tool's name.
 */
const el = (role: string, name: string, more: Partial<ElementDescriptor> = {}): ElementDescriptor => ({
  role,
  name,
  scope: null,
  tag: role === 'link' ? 'a' : role === 'textbox' ? 'input' : 'button',
  nth: 0,
  count: 1,
  ...more,
});
const step = (tool: TrajectoryStep['tool'], args: Record<string, unknown> = {}, target?: ElementDescriptor): TrajectoryStep => ({
  tool,
  args,
  ...(target ? { target } : {}),
});

describe('tool declarations', () => {
  it('every page tool says whether it writes, how its steps read and how they are replayed', () => {
    for (const tool of PAGE_TOOLS) {
      expect(typeof tool.describe).toBe('function');
      expect(['boolean', 'function']).toContain(typeof tool.writes);
      if (tool.replay) expect(['element', 'none']).toContain(tool.replay.target);
    }
    // Only what extract read is never a step: it becomes the trajectory's result plan.
    expect(PAGE_TOOLS.filter((t) => !t.replay).map((t) => t.name)).toEqual(['extract']);
    expect(PAGE_TOOLS.filter((t) => t.replay?.target === 'element').map((t) => t.name)).toEqual([
      'click',
      'type',
      'select',
      'press',
      'hover',
      'scroll',
    ]);
    expect(PAGE_TOOLS.filter((t) => t.replay?.args).map((t) => t.name)).toEqual(['click', 'switch_tab', 'close_tab', 'ask_user']);
    // A link click may be followed by its recorded href instead (link-shortcut.ts); nothing else has a shortcut.
    expect(PAGE_TOOLS.filter((t) => t.replay?.instead).map((t) => t.name)).toEqual(['click']);
    expect(pageToolNamed('no_such_tool')).toBeUndefined();
  });

  it("ask_user is replayed by asking the person again, for the recorded reason (the model's note is not kept)", async () => {
    const replay = pageToolNamed('ask_user')!.replay!;
    const args = await replay.args!({ reason: 'CODE' }, {} as ToolContext, { waitMs: 0 });
    expect(parseToolCall('ask_user', JSON.stringify(args))).toEqual({
      name: 'ask_user',
      args: { reason: 'CODE', note: 'the recorded run asked the user at this step' },
    });
  });

  it('writes: typing and choosing, a click or key press on anything but a link; never moving around, reading or asking the user', () => {
    const writing = [
      step('type', { text: 'hi' }, el('textbox', 'Message')),
      step('select', { option: 'Public' }, el('combobox', 'Visibility')),
      step('click', {}, el('button', 'Send')),
      step('press', { key: 'Enter' }, el('textbox', 'Search')),
      step('press', { key: 'Enter' }),
    ];
    const reading = [
      step('click', {}, el('link', 'Profile')),
      step('press', { key: 'Enter' }, el('link', 'Profile')),
      step('navigate', { url: '/me' }),
      step('hover', {}, el('button', 'Menu')),
      step('scroll', { direction: 'down' }),
      step('wait', { seconds: 1 }),
      step('switch_tab', { url: '/x', title: 'X' }),
      step('close_tab', { url: '/x', title: 'X' }),
      step('ask_user', { reason: 'CODE' }),
    ];
    expect(writing.map(stepWrites)).toEqual(writing.map(() => true));
    expect(reading.map(stepWrites)).toEqual(reading.map(() => false));
  });

  it('describes recorded steps in words (divergence reasons, the hand-over to the planner)', () => {
    const described = [
      step('navigate', { url: '/messages' }),
      step('click', {}, el('button', 'Send', { scope: "dialog 'New message'", nth: 1, count: 2 })),
      step('type', { text: '{{parameters.text}}', submit: true }, el('textbox', 'Message')),
      step('select', { option: 'Public' }, el('combobox', 'Visibility')),
      step('press', { key: 'Escape' }),
      step('press', { key: 'Enter' }, el('textbox', 'Search')),
      step('scroll', { direction: 'up' }),
      step('scroll', { direction: 'down' }, el('button', 'More')),
      step('wait', { seconds: 2 }),
      step('hover', {}, el('button', 'Menu')),
      step('switch_tab', { url: '/report', title: 'Report' }),
      step('close_tab', { url: '/report', title: 'Report' }),
      step('ask_user', { reason: 'CAPTCHA' }),
    ].map(describeStep);
    expect(described).toEqual([
      'navigate to /messages',
      "click button 'Send' in dialog 'New message' (#2 of 2)",
      "type '{{parameters.text}}' into textbox 'Message' and press Enter",
      "choose 'Public' in combobox 'Visibility'",
      'press Escape',
      "press Enter on textbox 'Search'",
      'scroll up',
      "scroll to button 'More'",
      'wait 2 s',
      "hover over button 'Menu'",
      "switch to the tab showing /report 'Report'",
      "close the tab showing /report 'Report'",
      'ask the user (CAPTCHA)',
    ]);
    // A step of a tool this version does not have (a trajectory stored by another) still reads.
    expect(describeStep({ tool: 'teleport' as TrajectoryStep['tool'], args: {}, target: el('button', 'Go') })).toBe("teleport button 'Go'");
  });
});
