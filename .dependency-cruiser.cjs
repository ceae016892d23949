/**
 * The layer rules (docs/architecture.md, "Layers"): checked by `npm run deps`,
 * which `npm test` runs. Arrows point down only:
 *   edges (cli, serve, demo, client, ingest, adapter, viz)
 *   test kit (testing, emulators)
 *   plug-ins (platforms/<id>, platforms/builtin|all)
 *   core (events, turnlog, routing, machines, runtime, budget, store,
 *         surfaces, actions, render, registry, config, clock)
 */
const CORE = [
  '^src/(events|turnlog|routing|runtime|budget|store|surfaces|actions|render|registry|adapter)/',
  '^src/(runtime|config|config-error|clock|index)\\.ts$',
  '^machines/',
];
/** The package entry (src/index.ts) re-exports the clients and the daemon, so it may reach the edges. */
const CORE_BELOW_EDGES = CORE.map((path) => path.replace('|index)', ')'));
const SDKS = ['googleapis', 'google-auth-library', '@slack/', 'discord\\.js', '@discordjs/'];
const SDK_PATH = `(^|/)node_modules/(${SDKS.join('|')})`;

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles, type-only imports included.',
      from: { path: '^(src|machines)/' },
      to: { circular: true },
    },
    {
      name: 'core-not-to-platforms',
      severity: 'error',
      comment: 'The core knows no platform: the registry is passed in (src/platforms/builtin.ts builds it).',
      from: { path: CORE },
      to: { path: ['^src/platforms/', '^src/emulators/', '^src/testing/', '^src/testing\\.ts$'] },
    },
    {
      name: 'core-not-to-sdks',
      severity: 'error',
      comment: 'No platform SDK in the core: `import "turnlog"` must not load one.',
      from: { path: CORE },
      to: { path: SDK_PATH },
    },
    {
      name: 'ioredis-only-lazily',
      severity: 'error',
      comment:
        'ioredis loads only when cluster.redisUrl is set: imported by src/cluster/redis-budget.ts alone, and only with a dynamic import() (issue 23.5).',
      from: { path: '^(src|machines)/' },
      to: {
        path: '(^|/)node_modules/ioredis/',
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'ioredis-in-one-place',
      severity: 'error',
      comment: 'The shared budget store is the one module that talks to Redis.',
      from: { path: '^(src|machines)/', pathNot: '^src/cluster/redis-budget\\.ts$' },
      to: { path: '(^|/)node_modules/ioredis/' },
    },
    {
      name: 'core-not-to-edges',
      severity: 'error',
      comment:
        'The core does not reach up into the edges (the runtime may use the inspector in viz/inspect.ts).',
      from: { path: CORE_BELOW_EDGES },
      to: { path: '^src/(cli|serve|demo|client|ingest|viz)/', pathNot: '^src/viz/inspect\\.ts$' },
    },
    {
      name: 'machines-pure',
      severity: 'error',
      comment: 'Machines import only xstate and types; implementations come from src/ via .provide().',
      from: { path: '^machines/' },
      to: {
        dependencyTypesNot: ['type-only'],
        // Known debt, to be provided through .provide() instead: the budget machine's
        // bucket maths and the space machine's plainText (pure functions, no I/O).
        pathNot: [
          '^machines/',
          '(^|/)node_modules/xstate/',
          '^src/budget/(bucket|config)\\.ts$',
          '^src/surfaces/frame\\.ts$',
        ],
      },
    },
    {
      name: 'production-not-to-test-kit',
      severity: 'error',
      comment:
        'Production code never imports the emulators or the testing kit (the demo and `turnlog emulate` are their edges).',
      from: {
        path: '^src/',
        pathNot: [
          '^src/(emulators|testing)/',
          '^src/testing\\.ts$',
          '^src/emulators\\.ts$',
          '^src/demo/',
          '^src/cli/(emulate|main|demo)\\.ts$',
        ],
      },
      to: { path: ['^src/emulators/', '^src/testing/', '^src/testing\\.ts$'] },
    },
    {
      name: 'emulators-not-to-platforms',
      severity: 'error',
      comment: 'An emulator checks the platform code, so it never borrows it.',
      from: { path: '^src/emulators/' },
      to: { path: '^src/platforms/' },
    },
    {
      name: 'platforms-not-to-each-other',
      severity: 'error',
      comment: 'A platform folder imports the core, never another platform.',
      from: { path: '^src/platforms/([^/]+)/' },
      to: { path: '^src/platforms/', pathNot: ['^src/platforms/$1/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
