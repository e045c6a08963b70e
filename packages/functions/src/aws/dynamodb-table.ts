/**
 * The Table port on Amazon DynamoDB (and DynamoDB Local). One physical table with
 * string keys pk/sk and two sparse GSIs (gsi1pk/gsi1sk, gsi2pk/gsi2sk), TTL on expiresAt.
 * DynamoDB deletes expired items lazily (up to days later), so every read and every
 * condition here treats an expired item as absent itself.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '@svc/core/ports/clock';
import {
  ConditionFailedError,
  type Condition,
  type Item,
  type ItemKey,
  type QueryInput,
  type QueryPage,
  type Table,
  type UpdateInput,
  type WriteOp,
} from '@svc/core/ports/table';
import {
  TTL_ATTRIBUTE,
  encodeCursor,
  epochSeconds,
  isExpired,
  itemFromUpdate,
  normalizeQuery,
  normalizeUpdate,
  validateCondition,
  validateItem,
  validateKey,
  validateTransaction,
  type NormalizedUpdate,
} from '../table-rules.ts';
import {
  ExpressionBuilder,
  conditionExpression,
  keyConditionExpression,
  notExpired,
  updateExpression,
} from './dynamodb-expressions.ts';

export interface DynamoDbTableOptions {
  tableName: string;
  client: DynamoDBClient;
  /** Source of "now" for TTL checks; defaults to the system clock. */
  clock?: Clock;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class DynamoDbTable implements Table {
  private readonly tableName: string;
  private readonly client: DynamoDBClient;
  private readonly doc: DynamoDBDocumentClient;
  private readonly clock: Clock;

  constructor(options: DynamoDbTableOptions) {
    this.tableName = options.tableName;
    this.client = options.client;
    this.clock = options.clock ?? systemClock;
    // removeUndefinedValues: items are JSON-like, and JSON drops undefined too.
    this.doc = DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
  }

  private now(): number {
    return epochSeconds(this.clock.now());
  }

  async get(key: ItemKey): Promise<Item | undefined> {
    validateKey(key);
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }),
    );
    const item = out.Item as Item | undefined;
    return item && !isExpired(item, this.now()) ? item : undefined;
  }

  async put(item: Item, condition?: Condition): Promise<void> {
    validateItem(item);
    validateCondition(condition);
    await this.single(() => this.doc.send(new PutCommand(this.putInput(item, condition, this.now()))));
  }

  async update(input: UpdateInput): Promise<Item> {
    const u = normalizeUpdate(input);
    const now = this.now();
    if (u.condition.kind === 'notExists') {
      // An expired item still holds its old attributes; updating it in place would
      // resurrect them. "Absent" must mean a fresh item, which only a put guarantees.
      const item = itemFromUpdate(u);
      await this.single(() => this.doc.send(new PutCommand(this.putInput(item, u.condition, now))));
      return item;
    }
    const out = await this.single(() =>
      this.doc.send(new UpdateCommand({ ...this.updateInput(u, now), ReturnValues: 'ALL_NEW' })),
    );
    return out.Attributes as Item;
  }

  async delete(key: ItemKey, condition?: Condition): Promise<void> {
    validateKey(key);
    validateCondition(condition);
    await this.single(() => this.doc.send(new DeleteCommand(this.deleteInput(key, condition, this.now()))));
  }

  async query(input: QueryInput): Promise<QueryPage> {
    const q = normalizeQuery(input);
    if (q.empty) return { items: [] };
    const now = this.now();
    const items: Item[] = [];
    let start: Record<string, unknown> | undefined = q.start;
    // Limit counts items evaluated before the expiry filter, so a page can come back
    // short while more items exist; keep reading until the page is full or the index ends.
    // Limit = what is still missing, so when the page fills, LastEvaluatedKey is exactly
    // the last item returned and the cursor resumes right after it.
    do {
      const b = new ExpressionBuilder();
      const keyCondition = keyConditionExpression(b, q);
      const filter = notExpired(b, now);
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: q.index === 'main' ? undefined : q.index,
          KeyConditionExpression: keyCondition,
          FilterExpression: filter,
          ...b.attributes(),
          ScanIndexForward: !q.descending,
          Limit: q.limit - items.length,
          ExclusiveStartKey: start,
          // GSIs only offer eventual consistency; the base table can read its own writes.
          ConsistentRead: q.index === 'main',
        }),
      );
      items.push(...((out.Items ?? []) as Item[]));
      start = out.LastEvaluatedKey;
    } while (start && items.length < q.limit);
    return start ? { items, cursor: encodeCursor(start) } : { items };
  }

  async transact(ops: WriteOp[]): Promise<void> {
    validateTransaction(ops);
    if (ops.length === 0) return;
    const now = this.now();
    const TransactItems = ops.map((op) => this.transactItem(op, now));
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems }));
    } catch (err) {
      const reasons = (err as { name?: string; CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if ((err as Error).name === 'TransactionCanceledException' && reasons) {
        const index = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (index >= 0) throw new ConditionFailedError(`Transaction op ${index}: condition failed`, index);
      }
      throw err;
    }
  }

  async health(): Promise<{ status: 'ok' | 'down'; detail?: string }> {
    try {
      const out = await this.client.send(new DescribeTableCommand({ TableName: this.tableName }));
      const status = out.Table?.TableStatus;
      // UPDATING tables (e.g. adding an index) still serve reads and writes.
      return status === 'ACTIVE' || status === 'UPDATING'
        ? { status: 'ok' }
        : { status: 'down', detail: `table ${this.tableName} is ${status ?? 'unknown'}` };
    } catch (err) {
      return { status: 'down', detail: `${(err as Error).name}: ${(err as Error).message}` };
    }
  }

  private transactItem(op: WriteOp, now: number): TransactItem {
    switch (op.type) {
      case 'put':
        return { Put: this.putInput(op.item, op.condition, now) };
      case 'update': {
        const u = normalizeUpdate(op.update);
        if (u.condition.kind === 'notExists') return { Put: this.putInput(itemFromUpdate(u), u.condition, now) };
        return { Update: this.updateInput(u, now) };
      }
      case 'delete':
        return { Delete: this.deleteInput(op.key, op.condition, now) };
      case 'check': {
        const b = new ExpressionBuilder();
        const ConditionExpression = conditionExpression(b, op.condition, now);
        return {
          ConditionCheck: {
            TableName: this.tableName,
            Key: { pk: op.key.pk, sk: op.key.sk },
            ConditionExpression,
            ...b.attributes(),
          },
        };
      }
    }
  }

  private putInput(item: Item, condition: Condition | undefined, now: number) {
    const b = new ExpressionBuilder();
    const ConditionExpression = condition ? conditionExpression(b, condition, now) : undefined;
    return { TableName: this.tableName, Item: item, ConditionExpression, ...b.attributes() };
  }

  private updateInput(u: NormalizedUpdate, now: number) {
    const b = new ExpressionBuilder();
    const UpdateExpression = updateExpression(b, u);
    const ConditionExpression = conditionExpression(b, u.condition, now);
    return { TableName: this.tableName, Key: u.key, UpdateExpression, ConditionExpression, ...b.attributes() };
  }

  private deleteInput(key: ItemKey, condition: Condition | undefined, now: number) {
    const b = new ExpressionBuilder();
    const ConditionExpression = condition ? conditionExpression(b, condition, now) : undefined;
    return { TableName: this.tableName, Key: { pk: key.pk, sk: key.sk }, ConditionExpression, ...b.attributes() };
  }

  /** Runs a single-item write, translating DynamoDB's failed condition into the port's error. */
  private async single<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      if ((err as Error).name === 'ConditionalCheckFailedException') {
        throw new ConditionFailedError('Condition failed');
      }
      throw err;
    }
  }
}

/** The CreateTable input for the single table: on-demand billing, both GSIs projecting everything. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const gsi = (name: string) => ({
    IndexName: name,
    KeySchema: [
      { AttributeName: `${name}pk`, KeyType: 'HASH' as const },
      { AttributeName: `${name}sk`, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((name) => ({
      AttributeName: name,
      AttributeType: 'S' as const,
    })),
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [gsi('gsi1'), gsi('gsi2')],
  };
}

/**
 * Creates the table if it is missing, waits until it is usable and turns on TTL.
 * Idempotent, and safe when two processes race to create the same table.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  let exists = true;
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = new Set((out.Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    const missing = ['gsi1', 'gsi2'].filter((name) => !indexes.has(name));
    if (missing.length) throw new Error(`Table ${tableName} exists but lacks index(es) ${missing.join(', ')}`);
  } catch (err) {
    if ((err as Error).name !== 'ResourceNotFoundException') throw err;
    exists = false;
  }
  if (!exists) {
    try {
      await client.send(new CreateTableCommand(tableDefinition(tableName)));
    } catch (err) {
      if ((err as Error).name !== 'ResourceInUseException') throw err; // someone else created it
    }
  }
  await waitUntilTableExists({ client, maxWaitTime: 300, minDelay: 1, maxDelay: 5 }, { TableName: tableName });
  await enableTtl(client, tableName);
}

async function enableTtl(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
    const d = ttl.TimeToLiveDescription;
    if ((d?.TimeToLiveStatus === 'ENABLED' || d?.TimeToLiveStatus === 'ENABLING') && d.AttributeName === TTL_ATTRIBUTE) {
      return;
    }
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  } catch (err) {
    // Correctness never depends on TTL deletion (reads filter expired items), so an
    // emulator that lacks or half-implements TTL (older DynamoDB Local answers
    // UnknownOperationException, or "already enabled" ValidationExceptions) is tolerated.
    const name = (err as Error).name;
    if (name === 'UnknownOperationException' || name === 'ValidationException') return;
    throw err;
  }
}
