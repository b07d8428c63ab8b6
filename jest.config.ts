import type { Config } from 'jest';

const packages = ['core', 'testing', 'streaming', 'handoff', 'choreography', 'patterns', 'ai-sdk', 'web', 'redis', 'react', 'otel', 'mcp', 'inspector', 'a2a'];

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/test'],
  testMatch: ['**/test/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.base.json' }],
    // jose (which @a2a-js/sdk's CommonJS build requires) ships ES modules only: compiled to CommonJS for Jest.
    '^.+/node_modules/jose/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, isolatedModules: true }],
  },
  transformIgnorePatterns: ['/node_modules/(?!\\.pnpm/jose@|jose/)'],
  moduleNameMapper: {
    '^@rxagents/web/client$': '<rootDir>/packages/web/src/client.ts',
    '^@rxagents/core/file-store$': '<rootDir>/packages/core/src/file-store.ts',
    ...Object.fromEntries(packages.map((name) => [`^@rxagents/${name}$`, `<rootDir>/packages/${name}/src/index.ts`])),
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  reporters: ['default', '<rootDir>/scripts/summary-reporter.cjs'],
};

export default config;
