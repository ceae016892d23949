/**
 * machineToMermaid on small machines defined here, one statechart construct
 * at a time (spec: actor-runtime issue item 8, "Visualizations").
 */
import { describe, expect, it } from 'vitest';
import { and, createMachine, fromPromise, not, or, setup, stateIn } from 'xstate';
import { machineToMermaid } from '../../src/viz/mermaid.js';
import { arrowLabels, readDiagram } from './mermaid-shape.js';

function render(machine: Parameters<typeof machineToMermaid>[0]) {
  const text = machineToMermaid(machine);
  const shape = readDiagram(text);
  expect(shape.problems).toEqual([]);
  return { text, shape };
}

describe('machineToMermaid: states', () => {
  it('draws the initial state, the states with their keys as labels, and final states to [*]', () => {
    const { text, shape } = render(
      createMachine({
        id: 'm',
        initial: 'idle',
        states: { idle: { on: { GO: 'done' } }, done: { type: 'final' } },
      }),
    );
    expect(text.split('\n')[0]).toBe('stateDiagram-v2');
    expect(text).toContain('[*] --> m_idle');
    expect(shape.labels).toEqual(
      new Map([
        ['m_idle', 'idle'],
        ['m_done', 'done'],
      ]),
    );
    expect(text).toContain('m_done --> [*]');
    expect(arrowLabels(shape, 'm_idle', 'm_done')).toEqual(['GO']);
  });

  it('nests compound states as composite blocks with their own initial arrow and final states', () => {
    const { text, shape } = render(
      createMachine({
        id: 'm',
        initial: 'outer',
        states: {
          outer: {
            initial: 'inner',
            states: {
              inner: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: { type: 'final' } } },
            },
          },
        },
      }),
    );
    expect(shape.parents.get('m_outer')).toBe('');
    expect(shape.parents.get('m_outer_inner')).toBe('m_outer');
    expect(shape.parents.get('m_outer_inner_a')).toBe('m_outer_inner');
    const innerBlock = blockText(text, 'm_outer_inner');
    expect(innerBlock).toContain('[*] --> m_outer_inner_a');
    expect(innerBlock).toContain('m_outer_inner_b --> [*]');
    // Siblings' arrows are written inside their block.
    expect(shape.arrows).toContainEqual({
      from: 'm_outer_inner_a',
      to: 'm_outer_inner_b',
      label: 'NEXT',
      block: 'm_outer_inner',
    });
  });

  it('writes arrows between states of different blocks at the top level', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 'a',
        states: {
          a: { initial: 'a1', states: { a1: { on: { JUMP: '#m.b.b1' } } } },
          b: { initial: 'b1', states: { b1: {} } },
        },
      }),
    );
    expect(shape.arrows).toContainEqual({ from: 'm_a_a1', to: 'm_b_b1', label: 'JUMP', block: '' });
  });

  it('draws parallel states as one block whose regions are split by --', () => {
    const { text, shape } = render(
      createMachine({
        id: 'm',
        initial: 'working',
        states: {
          working: {
            type: 'parallel',
            states: {
              upload: {
                initial: 'pending',
                states: { pending: { on: { UP: 'done' } }, done: { type: 'final' } },
              },
              download: { initial: 'pending', states: { pending: {} } },
            },
          },
        },
      }),
    );
    const block = blockText(text, 'm_working');
    const divider = block.indexOf('\n    --\n');
    expect(divider).toBeGreaterThan(block.indexOf('as m_working_upload {'));
    expect(divider).toBeLessThan(block.indexOf('as m_working_download {'));
    expect(shape.parents.get('m_working_upload_pending')).toBe('m_working_upload');
    expect(arrowLabels(shape, 'm_working_upload_pending', 'm_working_upload_done')).toEqual(['UP']);
    expect(text).not.toContain('[*] --> m_working_upload\n'); // regions have no initial arrow of their own
  });

  it('wraps a parallel root in one block entered from [*]', () => {
    const { text, shape } = render(
      createMachine({
        id: 'p',
        type: 'parallel',
        states: { a: { initial: 'x', states: { x: {} } }, b: { initial: 'y', states: { y: {} } } },
      }),
    );
    expect(text).toContain('[*] --> p\n');
    expect(shape.parents.get('p_a')).toBe('p');
    expect(shape.parents.get('p_b')).toBe('p');
  });

  it('sanitises ids with dots and hyphens and keeps the key as the label; colliding ids stay unique', () => {
    const { shape } = render(
      createMachine({
        id: 'turn.v2',
        initial: 'rolling-over',
        states: { 'rolling-over': { on: { X: 'rolling_over' } }, rolling_over: {}, 'a.b': {} },
      }),
    );
    expect(shape.labels.get('turn_v2_rolling_over')).toBe('rolling-over');
    expect(shape.labels.get('turn_v2_rolling_over_2')).toBe('rolling_over');
    expect(shape.labels.get('turn_v2_a_b')).toBe('a.b');
    expect(arrowLabels(shape, 'turn_v2_rolling_over', 'turn_v2_rolling_over_2')).toEqual(['X']);
  });

  it("steers ids clear of Mermaid's own: a leading 'default', a leading digit, and the [*] node names", () => {
    const { shape } = render(
      createMachine({ id: 'default', initial: 'start', states: { start: {}, '9lives': {} } }),
    );
    expect([...shape.labels.keys()]).toEqual(['m_default_start_', 'm_default_9lives']);
  });

  it('labels history states H and H*', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 'a',
        states: {
          a: {
            initial: 'x',
            states: { x: {}, shallow: { type: 'history' }, deep: { type: 'history', history: 'deep' } },
          },
        },
      }),
    );
    expect(shape.labels.get('m_a_shallow')).toBe('H');
    expect(shape.labels.get('m_a_deep')).toBe('H*');
  });
});

describe('machineToMermaid: transition labels', () => {
  it('names delays readably: named delays by name, numeric ones in ms', () => {
    const machine = setup({ delays: { editDebounce: 1000 } }).createMachine({
      id: 'turn',
      initial: 'debouncing',
      states: {
        debouncing: {
          initial: 'waiting',
          states: { waiting: { after: { editDebounce: 'sending' } }, sending: {} },
        },
        idle: { after: { 500: 'debouncing' } },
      },
    });
    const { shape } = render(machine);
    expect(arrowLabels(shape, 'turn_debouncing_waiting', 'turn_debouncing_sending')).toEqual([
      'after editDebounce',
    ]);
    expect(arrowLabels(shape, 'turn_idle', 'turn_debouncing')).toEqual(['after 500ms']);
  });

  it('names invoked actors: `<id> done` / `<id> error`, the src when the id is generated', () => {
    const machine = setup({ actors: { postMessage: fromPromise(async () => 'ok') } }).createMachine({
      id: 'm',
      initial: 'posting',
      states: {
        posting: {
          invoke: {
            id: 'postLog',
            src: 'postMessage',
            onDone: 'editing',
            onError: 'failed',
            onSnapshot: 'watching',
          },
        },
        editing: {
          invoke: [
            { src: 'postMessage', onDone: 'posting' },
            { src: fromPromise(async () => 1), onError: 'failed' },
          ],
        },
        watching: {},
        failed: { type: 'final' },
      },
    });
    const { shape } = render(machine);
    expect(arrowLabels(shape, 'm_posting', 'm_editing')).toEqual(['postLog done']);
    expect(arrowLabels(shape, 'm_posting', 'm_watching')).toEqual(['postLog snapshot']);
    expect(arrowLabels(shape, 'm_posting', 'm_failed')).toEqual(['postLog error']);
    expect(arrowLabels(shape, 'm_editing', 'm_posting')).toEqual(['postMessage done']);
    expect(arrowLabels(shape, 'm_editing', 'm_failed')).toEqual(['invoked actor error']);
  });

  it('labels always transitions `always` (with their guard) and a compound state reaching its final state `done`', () => {
    const machine = setup({ guards: { ready: () => true } }).createMachine({
      id: 'm',
      initial: 'checking',
      states: {
        checking: { always: [{ guard: 'ready', target: 'job' }, { target: 'job' }] },
        job: { initial: 'run', onDone: 'checking', states: { run: { type: 'final' } } },
      },
    });
    const { shape } = render(machine);
    expect(arrowLabels(shape, 'm_checking', 'm_job')).toEqual(['always [ready]', 'always']);
    expect(arrowLabels(shape, 'm_job', 'm_checking')).toEqual(['done']);
  });

  it('writes guards as written: names, params objects, not/and/or, stateIn, inline functions', () => {
    const machine = setup({
      guards: { a: () => true, b: () => true, c: () => true, withParams: (_, _p: { n: number }) => true },
    }).createMachine({
      id: 'm',
      initial: 's',
      states: {
        s: {
          on: {
            E1: { guard: 'a', target: 't' },
            E2: { guard: { type: 'withParams', params: { n: 1 } }, target: 't' },
            E3: { guard: not('a'), target: 't' },
            E4: { guard: and(['a', or(['b', 'c'])]), target: 't' },
            E5: { guard: not(and(['a', 'b'])), target: 't' },
            E6: { guard: stateIn('#m.t'), target: 't' },
            E7: { guard: ({ event }) => event.type === 'E7', target: 't' },
          },
        },
        t: {},
      },
    });
    const { shape } = render(machine);
    expect(arrowLabels(shape, 'm_s', 'm_t')).toEqual([
      'E1 [a]',
      'E2 [withParams]',
      'E3 [!a]',
      'E4 [a && (b || c)]',
      'E5 [!(a && b)]',
      'E6 [in #m.t]',
      'E7 [inline]',
    ]);
  });

  it('reads wildcards: child errors and completions, any event, other wildcards as written', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 's',
        states: {
          s: {
            on: {
              'xstate.error.actor.*': 'failed',
              'xstate.done.actor.*': 'failed',
              'budget.*': 'failed',
              '*': 'failed',
            },
          },
          failed: {},
        },
      }),
    );
    expect(arrowLabels(shape, 'm_s', 'm_failed')).toEqual([
      'any child error',
      'any child done',
      'budget.*',
      'any event',
    ]);
  });

  it('replaces characters that would end a Mermaid label', () => {
    const { shape } = render(
      createMachine({ id: 'm', initial: 's', states: { s: { on: { 'a:b;c"d%e<f>': 't' } }, t: {} } }),
    );
    expect(arrowLabels(shape, 'm_s', 'm_t')).toEqual(["a꞉b；c'd％e‹f›"]);
  });
});

describe('machineToMermaid: transitions that stay', () => {
  it('lists targetless transitions of an atomic state as text lines inside it', () => {
    const machine = setup({ guards: { known: () => true } }).createMachine({
      id: 'runtime',
      initial: 'running',
      states: {
        running: {
          on: {
            'runtime.event': [{ guard: 'known', actions: () => {} }, { actions: () => {} }],
            'xstate.error.actor.*': { actions: () => {} },
          },
        },
      },
    });
    const { shape } = render(machine);
    expect(shape.lines.get('runtime_running')).toEqual([
      'runtime.event [known]',
      'runtime.event',
      'any child error',
    ]);
    expect(shape.arrows).toEqual([]);
  });

  it('lists the targetless transitions of a compound state in a dashed "any substate" box inside it', () => {
    const { text, shape } = render(
      createMachine({
        id: 'turn',
        initial: 'opened',
        states: {
          opened: {
            initial: 'posting',
            on: { 'turn.log': { actions: () => {} }, 'turn.end': 'ended' },
            states: { posting: {} },
          },
          ended: { type: 'final' },
        },
      }),
    );
    expect(shape.labels.get('turn_opened_any')).toBe('any substate');
    expect(shape.parents.get('turn_opened_any')).toBe('turn_opened');
    expect(shape.lines.get('turn_opened_any')).toEqual(['turn.log']);
    expect(text).toContain('class turn_opened_any handlers');
    // A transition with a target leaves from the composite itself.
    expect(arrowLabels(shape, 'turn_opened', 'turn_ended')).toEqual(['turn.end']);
  });

  it('draws the machine root’s own transitions from an "any state" box', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 'a',
        on: { RESET: '.a', PING: { actions: () => {} } },
        states: { a: { on: { GO: 'b' } }, b: {} },
      }),
    );
    expect(shape.labels.get('m_any')).toBe('any state');
    expect(shape.lines.get('m_any')).toEqual(['PING']);
    expect(arrowLabels(shape, 'm_any', 'm_a')).toEqual(['RESET']);
  });

  it('ends an arrow into the machine root on its initial state', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 'a',
        states: { a: { on: { GO: 'b' } }, b: { on: { RESTART: '#m' } } },
      }),
    );
    expect(arrowLabels(shape, 'm_b', 'm_a')).toEqual(['RESTART']);
  });

  it('lists the transitions of a machine without states in its "any state" box', () => {
    const { shape } = render(
      createMachine({
        id: 'counter',
        on: { INC: { actions: () => {} }, RESET: { target: '#counter', reenter: true } },
      }),
    );
    expect(shape.lines.get('counter_any')).toEqual(['INC', 'RESET (re-enters)']);
    expect(shape.arrows).toEqual([]);
  });

  it('draws an atomic self re-entry as a loop, and notes a compound one in its box', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        initial: 'waiting',
        states: {
          waiting: { on: { RECOVER: { target: 'waiting', reenter: true }, NEXT: 'group' } },
          group: { initial: 'x', on: { RESTART: { target: 'group', reenter: true } }, states: { x: {} } },
        },
      }),
    );
    expect(arrowLabels(shape, 'm_waiting', 'm_waiting')).toEqual(['RECOVER']);
    expect(shape.lines.get('m_group_any')).toEqual(['RESTART (re-enters)']);
  });

  it('inside a parallel state, starts compound arrows from the box and ends them on the initial state (mermaid#4052)', () => {
    const { shape } = render(
      createMachine({
        id: 'm',
        type: 'parallel',
        states: {
          r: {
            initial: 'a',
            states: {
              a: { on: { ENTER: 'b' } },
              b: { initial: 'b1', on: { LEAVE: 'a' }, states: { b1: {} } },
            },
          },
        },
      }),
    );
    expect(arrowLabels(shape, 'm_r_a', 'm_r_b_b1')).toEqual(['ENTER']);
    expect(arrowLabels(shape, 'm_r_b_any', 'm_r_a')).toEqual(['LEAVE']);
    expect(shape.arrows.some((a) => a.from === 'm_r_b' || a.to === 'm_r_b')).toBe(false);
  });
});

describe('machineToMermaid: output', () => {
  it('is deterministic: the same definition gives the same text', () => {
    const define = () =>
      setup({ delays: { d: 10 }, guards: { g: () => true } }).createMachine({
        id: 'm',
        initial: 'a',
        states: {
          a: { after: { d: 'b' }, on: { E: { guard: 'g', target: 'b' } } },
          b: { type: 'parallel', states: { x: { initial: 'x1', states: { x1: {} } }, y: {} } },
        },
      });
    expect(machineToMermaid(define())).toBe(machineToMermaid(define()));
  });

  it('writes the given comments under the header', () => {
    const text = machineToMermaid(createMachine({ id: 'm', initial: 'a', states: { a: {} } }), {
      comments: ['Generated; do not edit.'],
    });
    expect(text.split('\n').slice(0, 2)).toEqual(['stateDiagram-v2', '  %% Generated; do not edit.']);
  });
});

/** The lines of the composite block declared `as <id> {`, up to its closing brace. */
function blockText(text: string, id: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trimEnd().endsWith(` as ${id} {`));
  const indent = lines[start]!.length - lines[start]!.trimStart().length;
  const end = lines.findIndex((l, i) => i > start && l === `${' '.repeat(indent)}}`);
  return `${lines.slice(start, end + 1).join('\n')}\n`;
}
