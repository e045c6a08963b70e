import { modelTiers } from '../packages/core/src/llm/types.ts';
import { parseLlmConfig, providerNames } from '../packages/functions/src/llm/config.ts';
import { embedderFromEnv } from '../packages/functions/src/embeddings/from-env.ts';

/**
 * The optional model and embeddings settings of the functions that use them (the API and
 * the run graph's task functions), docs/deploy.md "Models":
 *
 * - Everything but the API keys comes from the shell that runs `sst deploy`, with the
 *   variable names of packages/functions/src/llm/config.ts and embeddings/from-env.ts;
 *   each one set is passed through. They are checked here by the functions' own parsers,
 *   so a bad value stops the deploy, naming the variable, instead of failing every
 *   request.
 * - API keys are SST secrets (`sst secret set AnthropicApiKey …`), declared only for the
 *   providers in use, and given to the functions under the variable their parser reads.
 *   A key in the deploying shell is refused rather than silently ignored or written into
 *   plain configuration.
 * - With Bedrock in use (models or embeddings), the functions may call
 *   `bedrock:InvokeModel` (Converse and the embeddings' InvokeModel both need it).
 *
 * No provider named: no settings, no secrets, no permission; the functions then answer
 * model features with NO_MODEL and embed healing memory locally, as without AWS.
 */

// The SST globals this file uses, typed structurally (as in infra/events.ts) so the file
// type-checks without SST's generated .sst/platform declarations.
interface Output {
  toString(): string;
}
interface SstSecret {
  value: Output;
}
declare const sst: { Secret: new (name: string, placeholder?: string) => SstSecret };

const upper = (s: string) => s.toUpperCase();

/** Model settings passed through from the deploying shell when set. */
export const modelSettingNames: string[] = [
  'SVC_LLM_PROVIDERS',
  'SVC_LLM_PROVIDER',
  'SVC_LLM_FALLBACK',
  'SVC_LLM_TIMEOUT_MS',
  'SVC_LLM_MAX_TOKENS',
  ...modelTiers.map((t) => `SVC_LLM_COST_${upper(t)}`),
  'SVC_LLM_COST_LIMIT_PER_RUN',
  'SVC_LLM_COST_LIMIT_PER_TEST',
  'SVC_LLM_VISION',
  'SVC_LLM_VISION_VERIFY',
  ...providerNames.flatMap((p) => modelTiers.map((t) => `SVC_${upper(p)}_MODEL_${upper(t)}`)),
  'SVC_ANTHROPIC_BASE_URL',
  'SVC_OPENAI_BASE_URL',
  'SVC_BEDROCK_REGION',
  'SVC_BEDROCK_ENDPOINT',
  'SVC_EMBEDDINGS_PROVIDER',
  'SVC_EMBEDDINGS_MODEL',
  'SVC_EMBEDDINGS_BASE_URL',
];

/** The API keys: an SST secret each, handed to the functions as `variable`. */
export const modelSecrets = [
  { secret: 'AnthropicApiKey', variable: 'SVC_ANTHROPIC_API_KEY' },
  { secret: 'OpenaiApiKey', variable: 'SVC_OPENAI_API_KEY' },
  { secret: 'EmbeddingsApiKey', variable: 'SVC_EMBEDDINGS_API_KEY' },
] as const;
type SecretName = (typeof modelSecrets)[number]['secret'];

/**
 * Model ids Bedrock may be called with: its foundation models and inference profiles in
 * any region (a cross-region inference profile routes to other regions), plus any model
 * named by ARN (provisioned or custom models).
 */
const bedrockResources = ['arn:aws:bedrock:*::foundation-model/*', 'arn:aws:bedrock:*:*:inference-profile/*'];

export interface ModelSettings {
  /** Variables for the functions: the shell's settings and each declared secret's value. */
  environment: Record<string, string | Output>;
  /** `bedrock:InvokeModel` when Bedrock is in use, else none. */
  permissions: { actions: string[]; resources: string[] }[];
}

export function declareModelSettings(env: Record<string, string | undefined> = process.env): ModelSettings {
  const given = Object.fromEntries(
    modelSettingNames.map((name) => [name, env[name]?.trim() ?? ''] as const).filter(([, value]) => value !== ''),
  );
  const issues: string[] = modelSecrets
    .filter(({ variable }) => env[variable]?.trim())
    .map(({ variable, secret }) => `${variable}: API keys are SST secrets, not deploy settings (run \`sst secret set ${secret} <key>\` and unset it)`);

  // Checked with every key present (the secrets are set apart from the shell), in the
  // region the Lambda runtime provides: what is left are the shell's own mistakes.
  const withKeys = { ...given, AWS_REGION: 'deploy-region', ...Object.fromEntries(modelSecrets.map(({ variable }) => [variable, 'set-as-sst-secret'])) };
  const llm = attempt(issues, () => parseLlmConfig(withKeys));
  attempt(issues, () => embedderFromEnv(withKeys));
  if (issues.length) throw new Error(`invalid deploy settings (see docs/deploy.md): ${issues.join('; ')}`);

  const provider = (name: string) => llm?.providers.find((p) => p.name === name);
  const embeddings = (given.SVC_EMBEDDINGS_PROVIDER ?? 'local').toLowerCase();
  // Which keys the settings need: required ones have no placeholder, so `sst deploy` stops
  // until they are set; optional ones (a self-hosted OpenAI-compatible server may need
  // none) default to empty, which the functions read as unset.
  const needed = new Map<SecretName, 'required' | 'optional'>();
  if (provider('anthropic')) needed.set('AnthropicApiKey', 'required');
  const openai = provider('openai');
  if (openai) needed.set('OpenaiApiKey', openai.baseUrl ? 'optional' : 'required');
  if (embeddings === 'openai') {
    // Embeddings fall back to the OpenAI key and base URL (embeddings/from-env.ts).
    const covered = given.SVC_EMBEDDINGS_BASE_URL || given.SVC_OPENAI_BASE_URL || openai;
    needed.set('EmbeddingsApiKey', covered ? 'optional' : 'required');
  }

  const environment: ModelSettings['environment'] = { ...given };
  for (const { secret, variable } of modelSecrets) {
    const need = needed.get(secret);
    if (need) environment[variable] = (need === 'required' ? new sst.Secret(secret) : new sst.Secret(secret, '')).value;
  }

  const bedrockModels = [...Object.values(provider('bedrock')?.models ?? {}), ...(embeddings === 'bedrock' && given.SVC_EMBEDDINGS_MODEL ? [given.SVC_EMBEDDINGS_MODEL] : [])];
  const usesBedrock = Boolean(provider('bedrock')) || embeddings === 'bedrock';
  const permissions = usesBedrock
    ? [{ actions: ['bedrock:InvokeModel'], resources: [...bedrockResources, ...new Set(bedrockModels.filter((m) => m.startsWith('arn:')))] }]
    : [];
  return { environment, permissions };
}

/** Runs a parser, collecting its error lines (they name variables, never values). */
function attempt<T>(issues: string[], parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    issues.push(
      ...(error as Error).message
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('invalid LLM configuration')),
    );
    return undefined;
  }
}
