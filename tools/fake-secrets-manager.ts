/**
 * A local AWS Secrets Manager speaking the JSON 1.1 protocol (`X-Amz-Target: secretsmanager.<Operation>`),
 * good enough for the real `SecretsManagerClient` pointed at it with `endpoint` and static credentials.
 * Used by the secrets tests, the lead's tests, `npm run demo` and the reliability suite.
 *
 * Supported: GetSecretValue (SecretId by name or ARN, VersionId and/or VersionStage), DescribeSecret
 * (VersionIdsToStages), errors in the `__type` shape (ResourceNotFoundException, AccessDeniedException,
 * InternalServiceError, ThrottlingException, InvalidParameterException, UnknownOperationException).
 * Request signatures are checked for presence only.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeSecretsManagerFailure =
  /** 500 InternalServiceError on every request (the SDK retries it, then gives up). */
  | "unavailable"
  /** 400 ThrottlingException on every request. */
  | "throttled"
  /** 400 AccessDeniedException, as when the IAM policy does not allow the call. */
  | "denied"
  /** The request is accepted and never answered, to exercise client timeouts. */
  | "hang";

export type FakeSecretsManagerOperation = "GetSecretValue" | "DescribeSecret" | (string & {});

export interface FakeSecretsManagerCall {
  operation: FakeSecretsManagerOperation;
  secretId: string | undefined;
  versionId: string | undefined;
  versionStage: string | undefined;
  /** HTTP status answered (0 for a request left hanging). */
  status: number;
}

export interface PutSecretValueOptions {
  /** Staging label for the new version. Default "AWSCURRENT": the old AWSCURRENT becomes AWSPREVIOUS. */
  stage?: string;
  /** CreatedDate of the version. Default: now. */
  createdDate?: Date;
  /** Default: a random UUID, as AWS does. */
  versionId?: string;
}

export interface FakeSecretsManager {
  /** `http://127.0.0.1:<port>`: pass it as the SDK client's `endpoint` (or AWS_ENDPOINT_URL_SECRETS_MANAGER). */
  readonly endpoint: string;
  readonly region: string;
  /** Every request received, in order. */
  readonly calls: FakeSecretsManagerCall[];
  /** Creates the secret on first use; a new version with the given stage (rotation for AWSCURRENT). */
  putSecretValue(
    secretId: string,
    value: string | Uint8Array,
    options?: PutSecretValueOptions,
  ): { versionId: string; arn: string };
  /** Removes the secret, so the next request gets ResourceNotFoundException. */
  deleteSecret(secretId: string): void;
  /** Makes every request fail in the given way until `setFailure(null)`. Hanging requests are released then. */
  setFailure(mode: FakeSecretsManagerFailure | null): void;
  close(): Promise<void>;
}

export interface FakeSecretsManagerOptions {
  port?: number;
  host?: string;
  region?: string;
  accountId?: string;
}

interface Version {
  id: string;
  secretString: string | undefined;
  secretBinary: Uint8Array | undefined;
  createdDate: Date;
  stages: Set<string>;
}

interface Secret {
  name: string;
  arn: string;
  createdDate: Date;
  lastChangedDate: Date;
  versions: Map<string, Version>;
}

class AwsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const JSON_CONTENT_TYPE = "application/x-amz-json-1.1";

export async function startFakeSecretsManager(
  options: FakeSecretsManagerOptions = {},
): Promise<FakeSecretsManager> {
  const host = options.host ?? "127.0.0.1";
  const region = options.region ?? "us-east-1";
  const accountId = options.accountId ?? "123456789012";
  const secrets = new Map<string, Secret>();
  const calls: FakeSecretsManagerCall[] = [];
  const hanging = new Set<ServerResponse>();
  let failure: FakeSecretsManagerFailure | null = null;

  const arnFor = (name: string): string => {
    // AWS appends six random characters; a hash keeps ARNs stable across runs.
    const suffix = createHash("sha256").update(name).digest("base64url").replace(/[-_]/g, "x").slice(0, 6);
    return `arn:aws:secretsmanager:${region}:${accountId}:secret:${name}-${suffix}`;
  };

  const find = (secretId: string | undefined): Secret => {
    if (secretId === undefined || secretId === "") {
      throw new AwsError("InvalidParameterException", "You must provide a value for the SecretId parameter.");
    }
    for (const secret of secrets.values()) {
      if (secret.name === secretId || secret.arn === secretId) return secret;
    }
    throw new AwsError("ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
  };

  const deniedMessage = (operation: string, secretId: string | undefined): string =>
    `User: arn:aws:iam::${accountId}:user/order-desk is not authorized to perform: secretsmanager:${operation} ` +
    `on resource: ${secretId ?? "*"} because no identity-based policy allows the secretsmanager:${operation} action`;

  const getSecretValue = (input: Record<string, unknown>): unknown => {
    const secret = find(asString(input.SecretId));
    const versionId = asString(input.VersionId);
    const stage = asString(input.VersionStage);
    let version: Version | undefined;
    if (versionId !== undefined) {
      version = secret.versions.get(versionId);
      if (version && stage !== undefined && !version.stages.has(stage)) {
        throw new AwsError(
          "InvalidRequestException",
          "You provided a VersionStage that is not associated to the provided VersionId.",
        );
      }
      if (!version) {
        throw new AwsError(
          "ResourceNotFoundException",
          `Secrets Manager can't find the specified secret value for VersionId: ${versionId}`,
        );
      }
    } else {
      const wanted = stage ?? "AWSCURRENT";
      version = [...secret.versions.values()].find((v) => v.stages.has(wanted));
      if (!version) {
        throw new AwsError(
          "ResourceNotFoundException",
          `Secrets Manager can't find the specified secret value for staging label: ${wanted}`,
        );
      }
    }
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.id,
      ...(version.secretString !== undefined ? { SecretString: version.secretString } : {}),
      ...(version.secretBinary !== undefined
        ? { SecretBinary: Buffer.from(version.secretBinary).toString("base64") }
        : {}),
      VersionStages: [...version.stages],
      CreatedDate: epochSeconds(version.createdDate),
    };
  };

  const describeSecret = (input: Record<string, unknown>): unknown => {
    const secret = find(asString(input.SecretId));
    const versionIdsToStages: Record<string, string[]> = {};
    for (const version of secret.versions.values()) {
      if (version.stages.size > 0) versionIdsToStages[version.id] = [...version.stages];
    }
    return {
      ARN: secret.arn,
      Name: secret.name,
      RotationEnabled: false,
      CreatedDate: epochSeconds(secret.createdDate),
      LastChangedDate: epochSeconds(secret.lastChangedDate),
      VersionIdsToStages: versionIdsToStages,
    };
  };

  const send = (res: ServerResponse, status: number, body: unknown, errorType?: string): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": JSON_CONTENT_TYPE,
      "content-length": Buffer.byteLength(text),
      "x-amzn-requestid": randomUUID(),
      ...(errorType ? { "x-amzn-errortype": errorType } : {}),
    });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const target = headerValue(req, "x-amz-target") ?? "";
    const operation = target.startsWith("secretsmanager.") ? target.slice("secretsmanager.".length) : target;
    let input: Record<string, unknown> = {};
    try {
      const parsed: unknown = raw.length > 0 ? JSON.parse(raw) : {};
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        input = parsed as Record<string, unknown>;
    } catch {
      // Left empty: the operation below answers with the error AWS would give for a missing SecretId.
    }
    const call: FakeSecretsManagerCall = {
      operation,
      secretId: asString(input.SecretId),
      versionId: asString(input.VersionId),
      versionStage: asString(input.VersionStage),
      status: 0,
    };
    calls.push(call);
    const reply = (status: number, body: unknown, errorType?: string): void => {
      call.status = status;
      send(res, status, body, errorType);
    };
    const replyError = (error: AwsError): void =>
      reply(error.status, { __type: error.type, Message: error.message }, error.type);

    if (req.method !== "POST" || !(headerValue(req, "content-type") ?? "").startsWith(JSON_CONTENT_TYPE)) {
      return replyError(new AwsError("UnknownOperationException", "Expected a JSON 1.1 POST request."));
    }
    if (!(headerValue(req, "authorization") ?? "").startsWith("AWS4-HMAC-SHA256")) {
      return replyError(
        new AwsError("MissingAuthenticationTokenException", "Request is missing Authentication Token", 400),
      );
    }
    switch (failure) {
      case "hang":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      case "unavailable":
        return replyError(new AwsError("InternalServiceError", "An error occurred on the server side.", 500));
      case "throttled":
        return replyError(new AwsError("ThrottlingException", "Rate exceeded", 400));
      case "denied":
        return replyError(new AwsError("AccessDeniedException", deniedMessage(operation, call.secretId)));
      case null:
        break;
    }
    try {
      switch (operation) {
        case "GetSecretValue":
          return reply(200, getSecretValue(input));
        case "DescribeSecret":
          return reply(200, describeSecret(input));
        default:
          throw new AwsError(
            "UnknownOperationException",
            `Operation ${operation || "(none)"} is not supported.`,
          );
      }
    } catch (error) {
      if (error instanceof AwsError) return replyError(error);
      return replyError(new AwsError("InternalServiceError", "An error occurred on the server side.", 500));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { __type: "InternalServiceError", Message: "fake server error" });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const releaseHanging = (): void => {
    for (const res of hanging) res.destroy();
    hanging.clear();
  };

  return {
    endpoint: `http://${host}:${port}`,
    region,
    calls,
    putSecretValue(secretId, value, opts = {}) {
      const createdDate = opts.createdDate ?? new Date();
      let secret = [...secrets.values()].find((s) => s.name === secretId || s.arn === secretId);
      if (!secret) {
        secret = {
          name: secretId,
          arn: arnFor(secretId),
          createdDate,
          lastChangedDate: createdDate,
          versions: new Map(),
        };
        secrets.set(secretId, secret);
      }
      const stage = opts.stage ?? "AWSCURRENT";
      const versionId = opts.versionId ?? randomUUID();
      // A staging label is attached to one version at a time; moving AWSCURRENT demotes the old one.
      for (const version of secret.versions.values()) {
        if (!version.stages.delete(stage)) continue;
        if (stage === "AWSCURRENT") {
          for (const other of secret.versions.values()) other.stages.delete("AWSPREVIOUS");
          version.stages.add("AWSPREVIOUS");
        }
      }
      secret.versions.set(versionId, {
        id: versionId,
        secretString: typeof value === "string" ? value : undefined,
        secretBinary: typeof value === "string" ? undefined : value,
        createdDate,
        stages: new Set([stage]),
      });
      secret.lastChangedDate = createdDate;
      return { versionId, arn: secret.arn };
    },
    deleteSecret(secretId) {
      for (const [key, secret] of secrets) {
        if (secret.name === secretId || secret.arn === secretId) secrets.delete(key);
      }
    },
    setFailure(mode) {
      failure = mode;
      if (mode !== "hang") releaseHanging();
    },
    close() {
      releaseHanging();
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
