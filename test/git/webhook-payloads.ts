/**
 * Push payloads of the three hosting providers, and how each signs a delivery.
 * GitHub's are its own published examples (@octokit/webhooks-examples); GitLab and Bitbucket
 * publish none on npm, so theirs follow the documented shapes field for field.
 */
import { randomUUID } from "node:crypto";
import examples from "@octokit/webhooks-examples/api.github.com/index.json" with { type: "json" };
import { signBitbucket, signGithub } from "../../src/git/webhook-signature.ts";

type Example = Record<string, any>;
const byName = (name: string): Example[] => ((examples as Array<{ name: string; examples: Example[] }>).find((e) => e.name === name)?.examples ?? []);

/** Every GitHub `push` example (branch pushes to `master` and tag pushes). */
export const GITHUB_PUSH_EXAMPLES: Example[] = byName("push");
/** The first GitHub example that pushes a branch (to `master`). */
export const GITHUB_BRANCH_PUSH: Example = GITHUB_PUSH_EXAMPLES.find((e) => String(e.ref).startsWith("refs/heads/"))!;
export const GITHUB_TAG_PUSH: Example = GITHUB_PUSH_EXAMPLES.find((e) => String(e.ref).startsWith("refs/tags/"))!;
export const GITHUB_PING: Example = byName("ping")[0]!;
export const GITHUB_ISSUES: Example = byName("issues")[0]!;

/** GitLab "Push Hook" as documented (docs.gitlab.com, webhook events → push events). */
export function gitlabPush(branch: string, opts: { after?: string } = {}): Example {
  return {
    object_kind: "push",
    event_name: "push",
    before: "95790bf891e76fee5e1747ab589903a6a1f80f22",
    after: opts.after ?? "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
    ref: `refs/heads/${branch}`,
    ref_protected: true,
    checkout_sha: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
    user_id: 4,
    user_name: "John Smith",
    user_username: "jsmith",
    user_email: "john@example.com",
    user_avatar: "https://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=8://s.gravatar.com/avatar/d4c74594d841139328695756648b6bd6?s=80",
    project_id: 15,
    project: {
      id: 15,
      name: "Diaspora",
      description: "",
      web_url: "http://example.com/mike/diaspora",
      git_ssh_url: "git@example.com:mike/diaspora.git",
      git_http_url: "http://example.com/mike/diaspora.git",
      namespace: "Mike",
      visibility_level: 0,
      path_with_namespace: "mike/diaspora",
      default_branch: "master",
    },
    commits: [
      {
        id: "b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327",
        message: "Update Catalan translation to e38cb41.\n\nSee https://gitlab.com/gitlab-org/gitlab for more information",
        title: "Update Catalan translation to e38cb41.",
        timestamp: "2011-12-12T14:27:31+02:00",
        url: "http://example.com/mike/diaspora/commit/b6568db1bc1dcd7f8b4d5a946b0b91f9dacd7327",
        author: { name: "Jordi Mallach", email: "jordi@softcatala.org" },
        added: ["CHANGELOG"],
        modified: ["app/controller/application.rb"],
        removed: [],
      },
      {
        id: "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
        message: "fixed readme",
        title: "fixed readme",
        timestamp: "2012-01-03T23:36:29+02:00",
        url: "http://example.com/mike/diaspora/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
        author: { name: "GitLab dev user", email: "gitlabdev@dv6700.(none)" },
        added: ["CHANGELOG"],
        modified: ["app/controller/application.rb"],
        removed: [],
      },
    ],
    total_commits_count: 4,
    repository: {
      name: "Diaspora",
      url: "git@example.com:mike/diaspora.git",
      description: "",
      homepage: "http://example.com/mike/diaspora",
      git_http_url: "http://example.com/mike/diaspora.git",
      git_ssh_url: "git@example.com:mike/diaspora.git",
      visibility_level: 0,
    },
  };
}

/** Bitbucket Cloud `repo:push` as documented (support.atlassian.com, event payloads → push). */
export function bitbucketPush(branch: string, opts: { hash?: string; deleted?: boolean } = {}): Example {
  const hash = opts.hash ?? "1e65c05c1d5171631d92438a13901ca7dae9618c";
  const target = {
    type: "commit",
    hash,
    message: "Update the docs\n",
    date: "2024-05-02T09:11:47+00:00",
    author: { type: "author", raw: "Emma <emma@example.com>" },
    parents: [{ type: "commit", hash: "f2a2a4b1c7f0e8e1b6e1d5a4c3b2a1f0e9d8c7b6" }],
    links: { html: { href: `https://bitbucket.org/team/docs/commits/${hash}` } },
  };
  const ref = { type: "branch", name: branch, target, links: { html: { href: `https://bitbucket.org/team/docs/branch/${branch}` } } };
  return {
    push: {
      changes: [
        {
          new: opts.deleted ? null : ref,
          old: { ...ref, target: { ...target, hash: "f2a2a4b1c7f0e8e1b6e1d5a4c3b2a1f0e9d8c7b6" } },
          created: false,
          forced: false,
          closed: opts.deleted === true,
          truncated: false,
          commits: opts.deleted ? [] : [target],
          links: { html: { href: "https://bitbucket.org/team/docs/branches/compare/1e65c05c..f2a2a4b1" } },
        },
      ],
    },
    actor: { type: "user", display_name: "Emma", uuid: "{a54f16da-24e9-4d7f-a3a7-b1ba2cd98aa3}", nickname: "emma" },
    repository: {
      type: "repository",
      full_name: "team/docs",
      name: "docs",
      uuid: "{3f0b0ac2-64a8-4d0f-8d1b-2f2b9e5f0d1a}",
      is_private: true,
      scm: "git",
      links: { html: { href: "https://bitbucket.org/team/docs" } },
    },
  };
}

export type ProviderName = "github" | "gitlab" | "bitbucket";

/** The headers each provider sends with a push delivery of `body`. */
export function pushHeaders(provider: ProviderName, body: string | Uint8Array, secret: string): Record<string, string> {
  if (provider === "github") {
    return {
      "content-type": "application/json",
      "X-GitHub-Event": "push",
      "X-GitHub-Delivery": randomUUID(),
      "X-Hub-Signature-256": signGithub(body, secret),
      "User-Agent": "GitHub-Hookshot/044aadd",
    };
  }
  if (provider === "gitlab") {
    return { "content-type": "application/json", "X-Gitlab-Event": "Push Hook", "X-Gitlab-Event-UUID": randomUUID(), "X-Gitlab-Token": secret, "User-Agent": "GitLab/17.0.0" };
  }
  return {
    "content-type": "application/json",
    "X-Event-Key": "repo:push",
    "X-Request-UUID": randomUUID(),
    "X-Hub-Signature": signBitbucket(body, secret),
    "User-Agent": "Bitbucket-Webhooks/2.0",
  };
}

/** The header that carries the proof for each provider. */
export const PROOF_HEADER: Record<ProviderName, string> = {
  github: "X-Hub-Signature-256",
  gitlab: "X-Gitlab-Token",
  bitbucket: "X-Hub-Signature",
};

/** A push of `branch` in the provider's shape, as the bytes it sends. */
export function pushBody(provider: ProviderName, branch: string): string {
  if (provider === "github") return JSON.stringify({ ...GITHUB_BRANCH_PUSH, ref: `refs/heads/${branch}` });
  if (provider === "gitlab") return JSON.stringify(gitlabPush(branch));
  return JSON.stringify(bitbucketPush(branch));
}
