/** What each external sign-in outcome code (from the callback's redirect) means to a person. */
const MESSAGES: Record<string, string> = {
  invalid_state: "That sign-in took too long or was started in another browser. Please try again.",
  cancelled: "The sign-in was cancelled at the provider.",
  provider_error: "The provider's answer could not be verified, so nobody was signed in. Please try again.",
  email_unverified:
    "The provider has not verified this email address. If you already have an account, sign in with your password or passkey and link the provider from your profile.",
  no_email: "The provider did not share an email address, so no account could be found or made.",
  signup_disabled: "This instance is invite-only: ask an administrator for an invitation, then sign in again.",
  already_linked: "That account at the provider is already linked to another Quire account.",
  provider_linked: "Another account at this provider is linked already; unlink it first.",
  private_network: "The provider's address is refused by this server's network rules. Tell your administrator.",
  unreachable: "The provider cannot be reached right now. Try again in a moment or sign in another way.",
};

export function signInErrorMessage(code: string): string {
  return MESSAGES[code] ?? "The sign-in did not complete. Please try again.";
}
