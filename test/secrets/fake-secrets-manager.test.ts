import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsManagerClient } from "../../src/secrets/client.ts";
import { type FakeSecretsManager, startFakeSecretsManager } from "../../tools/fake-secrets-manager.ts";

let fake: FakeSecretsManager;
let client: SecretsManagerClient;
beforeAll(async () => {
  fake = await startFakeSecretsManager();
  client = createSecretsManagerClient({
    endpoint: fake.endpoint,
    region: fake.region,
    credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await fake.close();
});

describe("fake Secrets Manager (real SDK client)", () => {
  it("moves AWSCURRENT to the new version and AWSPREVIOUS to the old one on each rotation", async () => {
    const v1 = fake.putSecretValue("fake/rotation", "one", { createdDate: new Date("2026-01-01T00:00:00Z") });
    const v2 = fake.putSecretValue("fake/rotation", "two");
    const v3 = fake.putSecretValue("fake/rotation", "three");

    const described = await client.send(new DescribeSecretCommand({ SecretId: "fake/rotation" }));
    expect(described.VersionIdsToStages).toEqual({
      [v2.versionId]: ["AWSPREVIOUS"],
      [v3.versionId]: ["AWSCURRENT"],
    });

    const current = await client.send(new GetSecretValueCommand({ SecretId: v3.arn }));
    expect(current).toMatchObject({
      SecretString: "three",
      VersionStages: ["AWSCURRENT"],
      Name: "fake/rotation",
    });
    const first = await client.send(
      new GetSecretValueCommand({ SecretId: "fake/rotation", VersionId: v1.versionId }),
    );
    expect(first).toMatchObject({
      SecretString: "one",
      VersionStages: [],
      CreatedDate: new Date("2026-01-01T00:00:00Z"),
    });
  });

  it("answers errors in the __type shape the SDK turns into named exceptions", async () => {
    fake.putSecretValue("fake/errors", "x");
    const names: string[] = [];
    const attempt = (input: ConstructorParameters<typeof GetSecretValueCommand>[0]) =>
      client.send(new GetSecretValueCommand(input)).catch((e: Error) => names.push(e.name));

    await attempt({ SecretId: "fake/none" });
    await attempt({ SecretId: "fake/errors", VersionStage: "AWSPREVIOUS" });
    fake.setFailure("denied");
    await attempt({ SecretId: "fake/errors" });
    fake.setFailure("unavailable");
    await attempt({ SecretId: "fake/errors" });
    fake.setFailure(null);

    expect(names).toEqual([
      "ResourceNotFoundException",
      "ResourceNotFoundException",
      "AccessDeniedException",
      "InternalServiceError",
    ]);
    expect(fake.calls.slice(-4).map((c) => c.status)).toEqual([400, 400, 400, 500]);
  });
});
