/** Time and identity sources, injectable so tests can control them. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface IdSource {
  uuid(): string;
}
export const randomIds: IdSource = { uuid: () => crypto.randomUUID() };
