import { keyAttributeNames, tableSchema } from './table-schema.ts';

/**
 * The single table behind the Store port. Billing is on-demand and point-in-time
 * recovery is on (SST's defaults for `Dynamo`); GSIs project all attributes.
 */
export const table = new sst.aws.Dynamo('Table', {
  fields: Object.fromEntries(keyAttributeNames.map((name) => [name, tableSchema.attributeType])),
  primaryIndex: tableSchema.primaryIndex,
  globalIndexes: tableSchema.globalIndexes,
  ttl: tableSchema.ttlAttribute,
});

/** Screenshots, traces, reports and baselines. Private; reached through the API only. */
export const artifacts = new sst.aws.Bucket('Artifacts');
