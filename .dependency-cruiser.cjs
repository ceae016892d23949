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
const SDKS = [
  'googleapis',
  'google-auth-library',
  '@slack/',
  'discord\\.js',
  '@discordjs/',
  'pg',
  'pg-[a-z-]+',
];
/** The Postgres store (issue 23.1) is the one core folder that may use its driver; it is loaded on demand. */
const POSTGRES_STORE = '^src/store/postgres/';
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
      comment:
        'No platform SDK (nor the Postgres driver) in the core: `import "turnlog"` must not load one. The Postgres store uses pg.',
      from: { path: CORE, pathNot: POSTGRES_STORE },
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
      name: 'postgres-store-loaded-on-demand',
      severity: 'error',
      comment:
        'The Postgres store (and pg with it) is loaded only when store.url is set: by a dynamic import, never a static one (src/cluster/, itself loaded on demand, may import it).',
      from: { path: '^src/', pathNot: [POSTGRES_STORE, '^src/cluster/'] },
      to: { path: POSTGRES_STORE, dependencyTypesNot: ['dynamic-import', 'type-only'] },
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
        // No exceptions: a value a machine needs comes in through its input (the budget's
        // resolved numbers, src/budget/machine-input.ts) or its implementations.
        pathNot: ['^machines/', '(^|/)node_modules/xstate/'],
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
