import { localEmbedder, type Embedder } from '@svc/core/healing/service/embedder';
import { openAiEmbedder } from './openai.ts';
import { bedrockEmbedder } from './bedrock.ts';

/**
 * The embedder for healing memory, from the environment (docs/healing.md "Memory"):
 *
 *   SVC_EMBEDDINGS_PROVIDER=local|openai|bedrock   default local (deterministic, no network)
 *   SVC_EMBEDDINGS_MODEL                           default text-embedding-3-small / amazon.titan-embed-text-v1
 *   openai:  SVC_EMBEDDINGS_BASE_URL (or SVC_OPENAI_BASE_URL), SVC_EMBEDDINGS_API_KEY (or SVC_OPENAI_API_KEY, OPENAI_API_KEY)
 *   bedrock: SVC_BEDROCK_REGION (or AWS_REGION), SVC_BEDROCK_ENDPOINT
 *
 * Every stored vector has 1536 dimensions; a model answering otherwise fails each call
 * with a clear error. A misconfiguration is refused at start-up, naming the variable.
 */
export function embedderFromEnv(env: Record<string, string | undefined>): Embedder {
  const provider = (env.SVC_EMBEDDINGS_PROVIDER ?? 'local').trim().toLowerCase() || 'local';
  const model = env.SVC_EMBEDDINGS_MODEL?.trim() || undefined;
  switch (provider) {
    case 'local':
      return localEmbedder();
    case 'openai': {
      const baseUrl = env.SVC_EMBEDDINGS_BASE_URL?.trim() || env.SVC_OPENAI_BASE_URL?.trim() || undefined;
      const apiKey = env.SVC_EMBEDDINGS_API_KEY || env.SVC_OPENAI_API_KEY || env.OPENAI_API_KEY || undefined;
      if (baseUrl && !/^https?:\/\/\S+$/i.test(baseUrl)) throw new Error('SVC_EMBEDDINGS_BASE_URL: must be an http(s) URL');
      if (!apiKey && !baseUrl) throw new Error('SVC_EMBEDDINGS_API_KEY (or SVC_OPENAI_API_KEY, OPENAI_API_KEY): required for api.openai.com embeddings');
      return openAiEmbedder({ baseUrl, apiKey, model });
    }
    case 'bedrock': {
      const region = env.SVC_BEDROCK_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION;
      if (!region) throw new Error('SVC_BEDROCK_REGION (or AWS_REGION): required for bedrock embeddings');
      const endpoint = env.SVC_BEDROCK_ENDPOINT?.trim() || undefined;
      if (endpoint && !/^https?:\/\/\S+$/i.test(endpoint)) throw new Error('SVC_BEDROCK_ENDPOINT: must be an http(s) URL');
      return bedrockEmbedder({ region, endpoint, model });
    }
    default:
      throw new Error(`SVC_EMBEDDINGS_PROVIDER: unknown provider "${provider}" (expected local, openai or bedrock)`);
  }
}
