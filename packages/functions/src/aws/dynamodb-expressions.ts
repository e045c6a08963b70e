/**
 * Builds DynamoDB expression strings for the Table port's conditions and updates.
 * Every attribute name and value goes through a placeholder, so reserved words
 * ("name", "status"...) and names containing dots are taken literally.
 */
import type { Condition } from '@svc/core/ports/table';
import { TTL_ATTRIBUTE, type NormalizedQuery, type NormalizedUpdate } from '../table-rules.ts';

export class ExpressionBuilder {
  private readonly names = new Map<string, string>();
  private readonly values: Record<string, unknown> = {};
  private valueCount = 0;

  name(attr: string): string {
    let placeholder = this.names.get(attr);
    if (!placeholder) {
      placeholder = `#n${this.names.size}`;
      this.names.set(attr, placeholder);
    }
    return placeholder;
  }

  value(value: unknown): string {
    const placeholder = `:v${this.valueCount++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  /**
   * The ExpressionAttributeNames/Values fields, omitted when empty: DynamoDB rejects
   * empty maps as well as placeholders no expression uses, so only used ones are built.
   */
  attributes(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    const out: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } = {};
    if (this.names.size > 0) out.ExpressionAttributeNames = Object.fromEntries([...this.names].map(([a, p]) => [p, a]));
    if (this.valueCount > 0) out.ExpressionAttributeValues = { ...this.values };
    return out;
  }
}

/**
 * An expired item (TTL passed, not yet deleted by DynamoDB) must behave as absent.
 * `expiresAt < :now` is false when expiresAt is missing or not a number, so
 * "not expired" is written NOT (...), which is true for items without a TTL.
 */
export function notExpired(b: ExpressionBuilder, nowSeconds: number): string {
  return `(NOT (${b.name(TTL_ATTRIBUTE)} < ${b.value(nowSeconds)}))`;
}

export function conditionExpression(b: ExpressionBuilder, condition: Condition, nowSeconds: number): string {
  switch (condition.kind) {
    case 'notExists':
      return `(attribute_not_exists(${b.name('pk')}) OR ${b.name(TTL_ATTRIBUTE)} < ${b.value(nowSeconds)})`;
    case 'exists':
      return `(attribute_exists(${b.name('pk')}) AND ${notExpired(b, nowSeconds)})`;
    case 'equals':
      return (
        `(attribute_exists(${b.name('pk')}) AND ${notExpired(b, nowSeconds)}` +
        ` AND ${b.name(condition.attr)} = ${b.value(condition.value)})`
      );
  }
}

export function updateExpression(b: ExpressionBuilder, u: NormalizedUpdate): string {
  const clauses: string[] = [];
  const set = Object.entries(u.set).map(([attr, value]) => `${b.name(attr)} = ${b.value(value)}`);
  if (set.length) clauses.push(`SET ${set.join(', ')}`);
  // ADD on a missing attribute starts it from 0, matching the port's "created at 0".
  const add = Object.entries(u.add).map(([attr, value]) => `${b.name(attr)} ${b.value(value)}`);
  if (add.length) clauses.push(`ADD ${add.join(', ')}`);
  if (u.remove.length) clauses.push(`REMOVE ${u.remove.map((attr) => b.name(attr)).join(', ')}`);
  return clauses.join(' ');
}

/** DynamoDB allows one condition on the sort key: begins_with, BETWEEN, >= or <=. */
export function keyConditionExpression(b: ExpressionBuilder, q: NormalizedQuery): string {
  const pk = `${b.name(q.pkAttr)} = ${b.value(q.pk)}`;
  const sk = () => b.name(q.skAttr); // only when used: unused placeholders are rejected
  if (q.skPrefix !== undefined) return `${pk} AND begins_with(${sk()}, ${b.value(q.skPrefix)})`;
  if (q.skFrom !== undefined && q.skTo !== undefined) {
    return `${pk} AND ${sk()} BETWEEN ${b.value(q.skFrom)} AND ${b.value(q.skTo)}`;
  }
  if (q.skFrom !== undefined) return `${pk} AND ${sk()} >= ${b.value(q.skFrom)}`;
  if (q.skTo !== undefined) return `${pk} AND ${sk()} <= ${b.value(q.skTo)}`;
  return pk;
}
