/// <reference path="./.sst/platform/config.d.ts" />

/** Stages whose data outlives `sst remove` and which refuse to be removed by accident. */
const PROTECTED_STAGES = ['production', 'prod'];

export default $config({
  app(input) {
    const isProtected = PROTECTED_STAGES.includes(input?.stage ?? '');
    return {
      name: 'svc',
      home: 'aws',
      // "retain" keeps the stateful resources (DynamoDB table, S3 bucket) on removal.
      removal: isProtected ? 'retain' : 'remove',
      protect: isProtected,
    };
  },
  async run() {
    // Imported here, not at the top: the SST globals exist only while run() executes.
    const storage = await import('./infra/storage.ts');
    const { api } = await import('./infra/api.ts');
    return {
      api: api.url,
      table: storage.table.name,
      artifactsBucket: storage.artifacts.name,
    };
  },
});
