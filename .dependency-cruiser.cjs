/**
 * The layer rules of Evalon, checked by `npm test` (`npm run lint:deps`).
 *
 *   src/model        records and attribute names every part shares; imports nothing of Evalon
 *   src/*            the library users import (instrumentation, evaluator API, judge, simulation)
 *   src/testing      the one top layer of the library that may start a collector
 *   collector/*      the service; builds on src/, never on src/testing
 *   collector/demo   `evalon demo`: like src/testing a top layer, it runs the example agent against
 *                    the scripted model, so it may import both (both ship in the package)
 *   collector/ledger the contract (role interfaces, errors, query reading) in collector/ledger/*.ts,
 *                    what the stores share in core/, the stores in sqlite/ and postgres/; the rest of
 *                    Evalon imports the contract and open-store.ts only
 *
 * Tests, benchmarks and examples may import anything; nothing imports them.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle: modules that need each other are one concept split in two, or a type in the wrong place.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'library-not-to-collector',
      severity: 'error',
      comment: 'src/ is the library and never imports the collector service (only src/testing may start one).',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: '^collector/' },
    },
    {
      name: 'library-not-to-testing',
      severity: 'error',
      comment: 'src/testing is the top layer: the rest of the library does not import it.',
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: '^src/testing/' },
    },
    {
      name: 'collector-not-to-testing',
      severity: 'error',
      comment: 'The collector does not import the test kits (they start a collector).',
      from: { path: '^collector/', pathNot: '^collector/demo/' },
      to: { path: '^src/testing/' },
    },
    {
      name: 'model-is-the-bottom',
      severity: 'error',
      comment: 'src/model holds the shared records and attribute names; it imports nothing else of Evalon.',
      from: { path: '^src/model/' },
      to: { path: '^(src/(?!model/)|collector/)' },
    },
    {
      name: 'ledger-stores-apart',
      severity: 'error',
      comment:
        'The ledger stores never import each other: what both need belongs in collector/ledger (the contract) or collector/ledger/core.',
      from: { path: '^collector/ledger/(sqlite|postgres)/' },
      to: { path: '^collector/ledger/(sqlite|postgres)/', pathNot: '^collector/ledger/$1/' },
    },
    {
      name: 'ledger-core-below-stores',
      severity: 'error',
      comment:
        'The ledger contract and core are what the stores build on: they import no store (only open-store.ts chooses one).',
      from: { path: '^collector/ledger/(core/|[^/]+$)', pathNot: '^collector/ledger/open-store\\.ts$' },
      to: { path: '^collector/ledger/(sqlite|postgres)/' },
    },
    {
      name: 'ledger-internals-private',
      severity: 'error',
      comment:
        'Outside collector/ledger, only its top-level modules (the contract, open-store.ts) are imported, never core/, sqlite/ or postgres/ (tests may).',
      from: { pathNot: '^(collector/ledger/|test/|bench/)' },
      to: { path: '^collector/ledger/[^/]+/' },
    },
    {
      name: 'product-not-to-tests',
      severity: 'error',
      comment: "Shipped code never imports tests, benchmarks or examples (the demo's support agent ships with it).",
      from: { path: '^(src|collector)/' },
      to: { path: '^(test|bench|examples)/', pathNot: '^examples/support-agent/' },
    },
    {
      name: 'product-not-to-dev-dependencies',
      severity: 'error',
      comment: 'Shipped code only imports runtime dependencies (a devDependency is missing after npm install evalon).',
      from: { path: '^(src|collector)/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    // swc parses TypeScript (type-only imports included) without the TypeScript compiler API.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};
