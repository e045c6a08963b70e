/** Healing at runtime: the order of attempts, what is remembered (patterns, cache, memory) and embeddings. */
export { HealingService, describeCandidate, type HealProposal, type HealPlanInput, type HealPlanNotes, type HealingServicePolicy } from './healing-service.ts';
export { failureText, type HealingKnowledge, type HealQuery, type HealRecord, type KnownFix, type HealMethod, type KnowledgeLookup } from './knowledge.ts';
export { storeHealingKnowledge, type StoreKnowledgeOptions } from './store-knowledge.ts';
export { localEmbedder, embedLocally, cosineSimilarity, tokenize, normalise, type Embedder } from './embedder.ts';
export { failureClass, urlPathPattern, failureClasses, type FailureClass } from './failure-class.ts';
export { locatorMatchCount } from './locator-match.ts';
export { patternType } from './pattern-type.ts';
export { stableKey, murmur32 } from './hash.ts';
export { healingSettings, defaultHealingSettings, type HealingSettings } from './settings.ts';
export { ModelChooser, promptFingerprint, type ModelChooserOptions, type ModelVerdict, type ModelDecision, type ShownCandidate } from './model-chooser.ts';
