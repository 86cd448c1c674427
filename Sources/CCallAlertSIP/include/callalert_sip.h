// A ring extension on sofia-sip's user agent (NUA), in plain C that Swift can call: NUA's functions take
// variadic tag lists, which Swift cannot pass. One stack runs every account on one su_root, in the thread that
// calls callalert_sip_stack_run (it blocks in sofia's event loop: no polling, idle costs no CPU). Other threads
// talk to it only through callalert_sip_stack_register and callalert_sip_stack_stop, which write to a pipe the
// loop watches. Events reach the caller through one callback, on the loop's thread, as a plain struct whose
// strings live only for the callback's duration.
#ifndef CALLALERT_SIP_H
#define CALLALERT_SIP_H

#ifdef __cplusplus
extern "C" {
#endif

/// What an event reports.
typedef enum callalert_sip_event_kind {
  /// The account's user agent is bound; `phrase` is its contact address.
  CALLALERT_SIP_STARTED = 1,
  /// The account's user agent could not be created (a bad bind address, a port in use); `phrase` says why.
  CALLALERT_SIP_START_FAILED = 2,
  /// A REGISTER was answered (or failed locally: 408, 503): `status`, `phrase`, and `expires` on success.
  CALLALERT_SIP_REGISTERED = 3,
  /// An INVITE arrived: the call's fields are set; the callback's return value is the status to answer
  /// (180: ring; 404, 486, 603...: refuse). The stack already sent 100 Trying.
  CALLALERT_SIP_INVITE = 4,
  /// The caller cancelled the INVITE (the stack answered 200 to the CANCEL and 487 to the INVITE);
  /// `reason_cause` is the `Reason: SIP;cause=N` of the CANCEL, 0 without one; `source` its sender.
  CALLALERT_SIP_CANCEL = 5,
  /// The call's transaction ended for another reason (a BYE, a timeout, a refusal); `status`, `phrase`.
  CALLALERT_SIP_TERMINATED = 6,
  /// Something the stack reports as an error (`status`, `phrase`), such as a request it could not process.
  CALLALERT_SIP_ERROR = 7,
  /// A line sofia-sip logged (a transport error, say); `phrase` is the line, `account` 0.
  CALLALERT_SIP_LOG = 8,
} callalert_sip_event_kind;

/// One event. Strings are NULL when the message had no such field.
typedef struct callalert_sip_event {
  callalert_sip_event_kind kind;
  /// The index of the account, in the order given to callalert_sip_stack_create.
  int account;
  int status;
  const char *phrase;
  /// Seconds the registration lasts (CALLALERT_SIP_REGISTERED with a 2xx status).
  unsigned expires;
  /// The INVITE's Call-ID and From tag: one call, however many forked copies arrive.
  const char *call_id;
  const char *from_tag;
  /// The caller as the From, P-Asserted-Identity and Remote-Party-ID headers give it (user part, display).
  const char *from_user;
  const char *from_display;
  const char *asserted_user;
  const char *asserted_display;
  const char *remote_party_user;
  const char *remote_party_display;
  /// The called user: the To header's and the Request-URI's user parts.
  const char *to_user;
  const char *request_user;
  /// The cause of a CANCEL's `Reason: SIP;cause=N` header (RFC 3326); 0 without one.
  int reason_cause;
  /// The numeric address the message came from (INVITE, CANCEL, a REGISTER's answer; for TERMINATED the BYE's
  /// sender, NULL when the call ended without one); NULL when unknown.
  const char *source;
} callalert_sip_event;

/// Receives every event; for CALLALERT_SIP_INVITE its return value is the status code to answer with.
typedef int (*callalert_sip_callback)(void *context, const callalert_sip_event *event);

/// One account: a ring extension. Strings are copied by callalert_sip_stack_create.
typedef struct callalert_sip_account {
  /// Where the user agent listens: `sip:127.0.0.1:5070`, `sip:*:*`, `sips:*:5061`, `sip:*:*;transport=tcp`.
  const char *bind_url;
  /// The registrar's URI (`sip:pbx.example.com;transport=tcp`); NULL: the account does not register.
  const char *registrar;
  /// The address of record registered, and the From of the REGISTER (`sip:201@pbx.example.com`).
  const char *aor;
  /// The user part of the Contact registered (the account's user), so INVITEs come back to it.
  const char *contact_user;
  /// The digest user name and password; NULL password: no authentication.
  const char *auth_user;
  const char *password;
  /// Every request goes through this proxy (`sip:sbc.example.com`); NULL: none.
  const char *outbound_proxy;
  /// The expiry asked for, in seconds (NUA refreshes before it ends).
  unsigned expires;
  /// The NAT keepalive interval in milliseconds (0: sofia's default).
  unsigned keepalive_ms;
  /// TLS: the directory of the CA certificates to verify the registrar with (NULL: sofia's default);
  /// `verify` nonzero: a certificate that does not verify fails the connection.
  const char *certificate_dir;
  int verify;
} callalert_sip_account;

typedef struct callalert_sip_stack callalert_sip_stack;

/// Creates a stack for `count` accounts; nothing runs until callalert_sip_stack_run. NULL when out of memory
/// or no pipe could be made.
callalert_sip_stack *callalert_sip_stack_create(
  const callalert_sip_account *accounts, int count, callalert_sip_callback callback, void *context);

/// Runs the stack in the calling thread until callalert_sip_stack_stop: creates each account's user agent,
/// registers those with a registrar, answers INVITEs. Returns 0 after a clean stop, -1 when sofia-sip could
/// not start at all.
int callalert_sip_stack_run(callalert_sip_stack *stack);

/// Asks the loop to (re-)register one account. Safe from any thread.
void callalert_sip_stack_register(callalert_sip_stack *stack, int account);

/// Asks the loop to give every pending copy of an INVITE (by its Call-ID) of one account a final answer
/// (`status` 300-699: 480 after the cap, say). Safe from any thread; a call already ended is left alone.
void callalert_sip_stack_answer(callalert_sip_stack *stack, int account, const char *call_id, int status);

/// Asks the loop to unregister, shut down and return. Safe from any thread; once is enough.
void callalert_sip_stack_stop(callalert_sip_stack *stack);

/// Frees the stack, once callalert_sip_stack_run returned (or was never called).
void callalert_sip_stack_destroy(callalert_sip_stack *stack);

#ifdef __cplusplus
}
#endif

#endif
