import { kmsKeyArn } from '../packages/functions/src/aws/config.ts';

/**
 * The KMS key that seals the secrets the store keeps (docs/deploy.md "Secrets at rest"):
 * project secrets, notification channel URLs and signing secrets, source-control
 * integration secrets. By default svc declares its own symmetric key, rotated yearly by
 * KMS (the key id stays the same, so nothing is re-sealed); an operator who keeps keys
 * elsewhere names one with SVC_KMS_KEY_ID in the deploying shell (a key ARN; checked here
 * so a bad value stops the deploy).
 *
 * The key is retained when the stage is removed, whatever the stage: a table that outlives
 * it (protected stages retain theirs) would hold secrets nothing can open. An unused key
 * left behind costs a dollar a month and is deleted by hand.
 *
 * Returns what the functions that open secrets need: the ARN as SVC_KMS_KEY_ID and
 * kms:GenerateDataKey + kms:Decrypt on that key alone.
 */
export function declareSecretsKey() {
  const given = process.env.SVC_KMS_KEY_ID?.trim();
  if (given) {
    const parsed = kmsKeyArn.safeParse(given);
    if (!parsed.success) throw new Error(`invalid deploy settings (see docs/deploy.md): SVC_KMS_KEY_ID: ${parsed.error.issues[0]!.message}`);
  }
  const arn = given || new aws.kms.Key('SecretsKey', { description: `svc ${$app.stage}: seals the secrets svc stores`, enableKeyRotation: true, deletionWindowInDays: 30 }, { retainOnDelete: true }).arn;
  return {
    arn,
    environment: { SVC_KMS_KEY_ID: arn },
    permissions: [{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], resources: [arn] }],
  };
}

export type SecretsKey = ReturnType<typeof declareSecretsKey>;
