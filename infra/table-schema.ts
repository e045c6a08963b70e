/**
 * The single DynamoDB table's shape as plain data: key attributes, global secondary
 * indexes and the TTL attribute. `infra/storage.ts` declares the deployed table from it,
 * and the offline infra test checks that the DynamoDB adapter creates the same table
 * (for DynamoDB Local), so the three cannot drift apart.
 *
 * No SST globals here: tests and tools import this file directly.
 * The names match the reserved attributes documented on the Table port
 * (packages/core/src/ports/table.ts).
 */
export const tableSchema = {
  /** Every key attribute is a DynamoDB string (`S`). */
  attributeType: 'string',
  primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
  globalIndexes: {
    gsi1: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' },
    gsi2: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk' },
  },
  /** Epoch seconds; DynamoDB deletes expired items lazily, readers filter them anyway. */
  ttlAttribute: 'expiresAt',
} as const;

export type GlobalIndexName = keyof typeof tableSchema.globalIndexes;

/** GSI names in declaration order. */
export const globalIndexNames = Object.keys(tableSchema.globalIndexes) as GlobalIndexName[];

/** Every attribute used by the primary key or a GSI key, primary key first. */
export const keyAttributeNames: string[] = [
  tableSchema.primaryIndex.hashKey,
  tableSchema.primaryIndex.rangeKey,
  ...globalIndexNames.flatMap((name) => [
    tableSchema.globalIndexes[name].hashKey,
    tableSchema.globalIndexes[name].rangeKey,
  ]),
];
