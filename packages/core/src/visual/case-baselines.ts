import { splitCaseId } from '../contracts/parameter-sets.ts';
import type { BaselineStore } from './baseline-store.ts';

/**
 * A parameterised test's baselines: each case (`<test id>[n]`) compares with a baseline of
 * its own — another set's data draws another page — kept under the test itself as
 * `<name> set <n>`, so the test's baselines list, accept and delete like any other
 * (the name stays within the 100 characters a baseline name has).
 */
export function caseBaselineName(name: string, index: number): string {
  const suffix = ` set ${index}`;
  return `${name.slice(0, 100 - suffix.length).trimEnd()}${suffix}`;
}

/** The store as cases see it: a case id reads and writes its test's `<name> set <n>`. */
export function caseBaselines(store: BaselineStore): BaselineStore {
  const at = (id: string, name: string): [string, string] => {
    const { testId, index } = splitCaseId(id);
    return index === undefined ? [id, name] : [testId, caseBaselineName(name, index)];
  };
  return {
    get: (id, name) => store.get(...at(id, name)),
    put: (id, name, png, metadata) => store.put(...at(id, name), png, metadata),
    ...(store.propose ? { propose: (id: string, name: string, png: Uint8Array) => store.propose!(...at(id, name), png) } : {}),
  };
}
