// The ring extension on sofia-sip's NUA: see include/callalert_sip.h for the contract.
#define _GNU_SOURCE  // pthread_setname_np
#include "callalert_sip.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct callalert_sip_stack;
struct callalert_sip_call;
struct callalert_sip_account_state;

#define SU_ROOT_MAGIC_T struct callalert_sip_stack
#define SU_WAKEUP_ARG_T struct callalert_sip_stack
#define SU_TIMER_ARG_T struct callalert_sip_stack
#define NUA_MAGIC_T struct callalert_sip_account_state
#define NUA_HMAGIC_T struct callalert_sip_call

#include <sofia-sip/msg_addr.h>
#include <sofia-sip/msg_header.h>
#include <sofia-sip/nua.h>
#include <sofia-sip/nua_tag.h>
#include <sofia-sip/sip_extra.h>
#include <sofia-sip/sip_header.h>
#include <sofia-sip/sip_status.h>
#include <sofia-sip/su.h>
#include <sofia-sip/su_log.h>
#include <sofia-sip/su_tag_io.h>
#include <sofia-sip/su_wait.h>
#include <sofia-sip/tport_tag.h>

/// A command written to the loop's pipe by another thread; `call_id` (COMMAND_ANSWER) is the loop's to free.
typedef struct command {
  int op;
  int account;
  int status;
  char *call_id;
} command;

enum { COMMAND_REGISTER = 1, COMMAND_STOP = 2, COMMAND_ANSWER = 3 };

/// An incoming call's handle context: what a later event needs to name the call, in its account's list so a
/// final answer can find it.
struct callalert_sip_call {
  char *call_id;
  int cancelled;
  int answered;          // a final answer was sent
  char *bye_source;      // who sent the BYE that ended it, if one did
  nua_handle_t *nh;
  struct callalert_sip_call *next, *previous;
};

struct callalert_sip_account_state {
  struct callalert_sip_stack *stack;
  int index;
  char *bind_url, *registrar, *aor, *contact_user, *auth_user, *password, *outbound_proxy, *certificate_dir;
  unsigned expires, keepalive_ms;
  int verify;
  nua_t *nua;
  nua_handle_t *registration;
  int authentications;  // digest answers sent for the current REGISTER; a second 401 means refused
  int shut_down;
  struct callalert_sip_call *calls;  // pending INVITEs, newest first
};

struct callalert_sip_stack {
  struct callalert_sip_account_state *accounts;
  int count;
  callalert_sip_callback callback;
  void *context;
  int pipe_read, pipe_write;
  su_root_t *root;
  su_timer_t *shutdown_timer;
  int stopping;
  // Calls freed since the heap was last trimmed, and the timer that trims it.
  unsigned freed_since_trim;
  su_time_t last_freed;
  su_timer_t *trim_timer;
  int trim_armed;
};

static void call_freed(struct callalert_sip_stack *stack);

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

/// The numeric address the current message (request or response) came from, written to `buffer`; NULL when
/// the stack does not know it.
static const char *current_source(nua_t *nua, char *buffer, size_t size) {
  msg_t *msg = nua_current_request(nua);
  su_addrinfo_t *info = msg ? msg_addrinfo(msg) : NULL;
  if (!info || !info->ai_addr || info->ai_addrlen == 0) return NULL;
  if (getnameinfo(info->ai_addr, (socklen_t)info->ai_addrlen, buffer, (socklen_t)size, NULL, 0, NI_NUMERICHOST) != 0)
    return NULL;
  return buffer;
}

static void emit(struct callalert_sip_account_state *account, callalert_sip_event *event) {
  event->account = account->index;
  account->stack->callback(account->stack->context, event);
}

static void emit_status(struct callalert_sip_account_state *account, callalert_sip_event_kind kind, int status,
                        const char *phrase) {
  callalert_sip_event event;
  memset(&event, 0, sizeof event);
  event.kind = kind;
  event.status = status;
  event.phrase = phrase;
  emit(account, &event);
}

callalert_sip_stack *callalert_sip_stack_create(const callalert_sip_account *accounts, int count,
                                                callalert_sip_callback callback, void *context) {
  struct callalert_sip_stack *stack = calloc(1, sizeof *stack);
  if (!stack) return NULL;
  int fds[2];
  if (pipe(fds) != 0) {
    free(stack);
    return NULL;
  }
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  stack->pipe_read = fds[0];
  stack->pipe_write = fds[1];
  stack->callback = callback;
  stack->context = context;
  stack->count = count;
  stack->accounts = calloc((size_t)(count > 0 ? count : 1), sizeof *stack->accounts);
  for (int i = 0; i < count; i++) {
    struct callalert_sip_account_state *a = &stack->accounts[i];
    a->stack = stack;
    a->index = i;
    a->bind_url = copy(accounts[i].bind_url);
    a->registrar = copy(accounts[i].registrar);
    a->aor = copy(accounts[i].aor);
    a->contact_user = copy(accounts[i].contact_user);
    a->auth_user = copy(accounts[i].auth_user);
    a->password = copy(accounts[i].password);
    a->outbound_proxy = copy(accounts[i].outbound_proxy);
    a->certificate_dir = copy(accounts[i].certificate_dir);
    a->expires = accounts[i].expires;
    a->keepalive_ms = accounts[i].keepalive_ms;
    a->verify = accounts[i].verify;
  }
  return stack;
}

static void send_command(callalert_sip_stack *stack, int op, int account) {
  command c = {op, account, 0, NULL};
  ssize_t written;
  do {
    written = write(stack->pipe_write, &c, sizeof c);
  } while (written < 0 && errno == EINTR);
}

void callalert_sip_stack_register(callalert_sip_stack *stack, int account) {
  send_command(stack, COMMAND_REGISTER, account);
}

void callalert_sip_stack_stop(callalert_sip_stack *stack) { send_command(stack, COMMAND_STOP, -1); }

void callalert_sip_stack_answer(callalert_sip_stack *stack, int account, const char *call_id, int status) {
  if (!call_id) return;
  command c = {COMMAND_ANSWER, account, status, strdup(call_id)};
  if (!c.call_id) return;
  ssize_t written;
  do {
    written = write(stack->pipe_write, &c, sizeof c);
  } while (written < 0 && errno == EINTR);
  if (written != (ssize_t)sizeof c) free(c.call_id);
}

void callalert_sip_stack_destroy(callalert_sip_stack *stack) {
  if (!stack) return;
  for (int i = 0; i < stack->count; i++) {
    struct callalert_sip_account_state *a = &stack->accounts[i];
    free(a->bind_url);
    free(a->registrar);
    free(a->aor);
    free(a->contact_user);
    free(a->auth_user);
    if (a->password) memset(a->password, 0, strlen(a->password));
    free(a->password);
    free(a->outbound_proxy);
    free(a->certificate_dir);
  }
  free(stack->accounts);
  close(stack->pipe_read);
  close(stack->pipe_write);
  free(stack);
}

// MARK: - Registration

static void start_registration(struct callalert_sip_account_state *a) {
  if (!a->nua || !a->registrar || a->shut_down) return;
  if (a->registration) {
    nua_handle_destroy(a->registration);
    a->registration = NULL;
  }
  a->authentications = 0;
  a->registration = nua_handle(a->nua, NULL, SIPTAG_TO_STR(a->aor), SIPTAG_FROM_STR(a->aor), TAG_END());
  if (!a->registration) {
    emit_status(a, CALLALERT_SIP_REGISTERED, 500, "could not create the registration");
    return;
  }
  char expires[16];
  snprintf(expires, sizeof expires, "%u", a->expires);
  nua_register(a->registration, NUTAG_REGISTRAR(URL_STRING_MAKE(a->registrar)), NUTAG_M_USERNAME(a->contact_user),
               SIPTAG_EXPIRES_STR(expires), TAG_END());
}

/// Answers a digest challenge once per REGISTER; a second challenge means the credentials were refused.
static int authenticate(struct callalert_sip_account_state *a, nua_handle_t *nh, sip_t const *sip) {
  if (!a->password || a->authentications >= 1 || !sip) return 0;
  msg_auth_t const *challenge = sip->sip_www_authenticate ? sip->sip_www_authenticate : sip->sip_proxy_authenticate;
  if (!challenge || !challenge->au_scheme) return 0;
  char const *realm = msg_params_find(challenge->au_params, "realm=");
  if (!realm) return 0;
  const char *user = a->auth_user ? a->auth_user : a->contact_user;
  size_t size = strlen(challenge->au_scheme) + strlen(realm) + strlen(user) + strlen(a->password) + 8;
  char *credentials = malloc(size);
  if (!credentials) return 0;
  // NUTAG_AUTH's form is scheme:"realm":user:password, the realm with its quotes as the challenge gave it.
  snprintf(credentials, size, "%s:%s:%s:%s", challenge->au_scheme, realm, user, a->password);
  a->authentications++;
  nua_authenticate(nh, NUTAG_AUTH(credentials), TAG_END());
  memset(credentials, 0, size);
  free(credentials);
  return 1;
}

static void registered(struct callalert_sip_account_state *a, nua_t *nua, int status, char const *phrase,
                       nua_handle_t *nh, sip_t const *sip) {
  if (nh != a->registration) return;  // a handle replaced by a new attempt
  if (status < 200) return;
  if ((status == 401 || status == 407) && authenticate(a, nh, sip)) return;
  callalert_sip_event event;
  memset(&event, 0, sizeof event);
  event.kind = CALLALERT_SIP_REGISTERED;
  event.status = status;
  event.phrase = phrase;
  char source[INET6_ADDRSTRLEN];
  event.source = current_source(nua, source, sizeof source);
  if (status < 300) {
    a->authentications = 0;  // the refreshes NUA sends are challenged afresh
    event.expires = a->expires;
    if (sip && sip->sip_contact && sip->sip_contact->m_expires)
      event.expires = (unsigned)strtoul(sip->sip_contact->m_expires, NULL, 10);
    else if (sip && sip->sip_expires)
      event.expires = (unsigned)sip->sip_expires->ex_delta;
  } else if ((status == 401 || status == 407) && a->authentications > 0) {
    event.phrase = "credentials refused";
  }
  emit(a, &event);
}

// MARK: - Calls

static const char *user_of(url_t const *url) { return url ? url->url_user : NULL; }

static void invited(struct callalert_sip_account_state *a, nua_t *nua, nua_handle_t *nh, sip_t const *sip) {
  callalert_sip_event event;
  memset(&event, 0, sizeof event);
  event.kind = CALLALERT_SIP_INVITE;
  char source[INET6_ADDRSTRLEN];
  event.source = current_source(nua, source, sizeof source);
  if (!sip || !sip->sip_call_id) {
    nua_respond(nh, SIP_400_BAD_REQUEST, TAG_END());
    return;
  }
  event.call_id = sip->sip_call_id->i_id;
  if (sip->sip_from) {
    event.from_tag = sip->sip_from->a_tag;
    event.from_user = user_of(sip->sip_from->a_url);
    event.from_display = sip->sip_from->a_display;
  }
  sip_p_asserted_identity_t const *asserted = sip_p_asserted_identity(sip);
  if (asserted) {
    event.asserted_user = user_of(asserted->paid_url);
    event.asserted_display = asserted->paid_display;
  }
  sip_remote_party_id_t const *party = sip_remote_party_id(sip);
  if (party) {
    event.remote_party_user = user_of(party->rpid_url);
    event.remote_party_display = party->rpid_display;
  }
  if (sip->sip_to) event.to_user = user_of(sip->sip_to->a_url);
  if (sip->sip_request) event.request_user = user_of(sip->sip_request->rq_url);

  struct callalert_sip_call *call = calloc(1, sizeof *call);
  if (call) {
    call->call_id = strdup(event.call_id);
    call->nh = nh;
    call->next = a->calls;
    if (a->calls) a->calls->previous = call;
    a->calls = call;
    nua_handle_bind(nh, call);
  }
  event.account = a->index;
  int answer = a->stack->callback(a->stack->context, &event);
  if (answer <= 100 || answer > 699) answer = 180;
  // Never a 2xx: the extension rings, it does not take the call.
  if (answer >= 200 && answer < 300) answer = 180;
  if (call && answer >= 300) call->answered = 1;
  nua_respond(nh, answer, sip_status_phrase(answer) ? sip_status_phrase(answer) : "Ringing", TAG_END());
}

/// A final answer for every pending copy of a call (the cap passed, say).
static void answer_call(struct callalert_sip_account_state *a, const char *call_id, int status) {
  if (status < 300 || status > 699) return;
  for (struct callalert_sip_call *call = a->calls; call; call = call->next) {
    if (call->cancelled || call->answered || !call->call_id || strcmp(call->call_id, call_id) != 0) continue;
    call->answered = 1;
    nua_respond(call->nh, status, sip_status_phrase(status) ? sip_status_phrase(status) : "Unavailable", TAG_END());
  }
}

static void bye_received(nua_t *nua, struct callalert_sip_call *call) {
  char source[INET6_ADDRSTRLEN];
  const char *address = current_source(nua, source, sizeof source);
  if (!call || call->bye_source) return;
  call->bye_source = strdup(address ? address : "");
}

static void cancelled(struct callalert_sip_account_state *a, nua_t *nua, struct callalert_sip_call *call,
                      sip_t const *sip) {
  callalert_sip_event event;
  memset(&event, 0, sizeof event);
  event.kind = CALLALERT_SIP_CANCEL;
  char source[INET6_ADDRSTRLEN];
  event.source = current_source(nua, source, sizeof source);
  event.call_id = call ? call->call_id : (sip && sip->sip_call_id ? sip->sip_call_id->i_id : NULL);
  if (sip) {
    for (sip_reason_t const *reason = sip->sip_reason; reason; reason = reason->re_next) {
      if (reason->re_protocol && strcasecmp(reason->re_protocol, "SIP") == 0 && reason->re_cause) {
        event.reason_cause = atoi(reason->re_cause);
        break;
      }
    }
  }
  if (call) call->cancelled = 1;
  emit(a, &event);
}

static void state_changed(struct callalert_sip_account_state *a, int status, char const *phrase, nua_handle_t *nh,
                          struct callalert_sip_call *call, tagi_t tags[]) {
  int state = nua_callstate_init;
  tl_gets(tags, NUTAG_CALLSTATE_REF(state), TAG_END());
  if (state != nua_callstate_terminated || !call) return;
  if (!call->cancelled) {
    callalert_sip_event event;
    memset(&event, 0, sizeof event);
    event.kind = CALLALERT_SIP_TERMINATED;
    event.status = status;
    event.phrase = phrase;
    event.call_id = call->call_id;
    event.source = call->bye_source;
    emit(a, &event);
  }
  nua_handle_bind(nh, NULL);
  if (call->previous) call->previous->next = call->next; else a->calls = call->next;
  if (call->next) call->next->previous = call->previous;
  free(call->call_id);
  free(call->bye_source);
  free(call);
  nua_handle_destroy(nh);
  call_freed(a->stack);
}

// MARK: - The heap after a flood

// A flood of INVITEs (a scanner's, refused 403) leaves sofia-sip's freed calls and transactions in this
// thread's malloc arena, which glibc gives back to the system only when asked: 10 000 of them kept about 100 MB
// resident for good. Once 256 calls were freed, the heap is trimmed every 10 s until 40 s after the last one
// (its transaction outlives it by SIP's 32 s); an idle stack arms no timer.
enum { TRIM_AFTER_FREED = 256, TRIM_EVERY_MS = 10000, TRIM_UNTIL_MS = 40000 };

static void trim_heap(struct callalert_sip_stack *stack, su_timer_t *timer, struct callalert_sip_stack *arg) {
  (void)arg;
  stack->trim_armed = 0;
  stack->freed_since_trim = 0;
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  if (!stack->stopping && su_duration(su_now(), stack->last_freed) < TRIM_UNTIL_MS &&
      su_timer_set(timer, trim_heap, stack) == 0)
    stack->trim_armed = 1;
}

static void call_freed(struct callalert_sip_stack *stack) {
  stack->last_freed = su_now();
  if (++stack->freed_since_trim < TRIM_AFTER_FREED || stack->trim_armed || stack->stopping) return;
  if (!stack->trim_timer) stack->trim_timer = su_timer_create(su_root_task(stack->root), TRIM_EVERY_MS);
  if (stack->trim_timer && su_timer_set(stack->trim_timer, trim_heap, stack) == 0) stack->trim_armed = 1;
}

// MARK: - The loop

static void maybe_finish(struct callalert_sip_stack *stack) {
  for (int i = 0; i < stack->count; i++) {
    if (stack->accounts[i].nua && !stack->accounts[i].shut_down) return;
  }
  su_root_break(stack->root);
}

static void event_callback(nua_event_t event, int status, char const *phrase, nua_t *nua,
                           struct callalert_sip_account_state *a, nua_handle_t *nh, struct callalert_sip_call *call,
                           sip_t const *sip, tagi_t tags[]) {
  if (!a) return;
  switch (event) {
    case nua_r_register:
      registered(a, nua, status, phrase, nh, sip);
      break;
    case nua_r_unregister:
      break;
    case nua_i_invite:
      invited(a, nua, nh, sip);
      break;
    case nua_i_cancel:
      cancelled(a, nua, call, sip);
      break;
    case nua_i_bye:
      bye_received(nua, call);
      break;
    case nua_i_state:
      state_changed(a, status, phrase, nh, call, tags);
      break;
    case nua_i_error:
      emit_status(a, CALLALERT_SIP_ERROR, status, phrase);
      break;
    case nua_r_shutdown:
      if (status >= 200) {
        a->shut_down = 1;
        maybe_finish(a->stack);
      }
      break;
    case nua_i_options:
    case nua_i_message:
    case nua_i_info:
    case nua_i_subscribe:
    case nua_i_notify:
    case nua_i_refer:
    case nua_i_publish:
      // Answered by NUA itself (OPTIONS 200, the others 501/405); the handle it made for them is freed.
      if (nh && !call && nh != a->registration) nua_handle_destroy(nh);
      break;
    default:
      break;
  }
}

static void shutdown_timeout(struct callalert_sip_stack *stack, su_timer_t *timer, struct callalert_sip_stack *arg) {
  (void)timer;
  (void)arg;
  su_root_break(stack->root);
}

static void begin_stop(struct callalert_sip_stack *stack) {
  if (stack->stopping) return;
  stack->stopping = 1;
  for (int i = 0; i < stack->count; i++) {
    struct callalert_sip_account_state *a = &stack->accounts[i];
    if (!a->nua) continue;
    if (a->registration) nua_unregister(a->registration, TAG_END());
    nua_shutdown(a->nua);
  }
  // A registrar that never answers the unregistration does not hold the daemon's shutdown for long.
  stack->shutdown_timer = su_timer_create(su_root_task(stack->root), 3000);
  if (stack->shutdown_timer) su_timer_set(stack->shutdown_timer, shutdown_timeout, stack);
  maybe_finish(stack);
}

static int pipe_readable(struct callalert_sip_stack *stack, su_wait_t *wait, struct callalert_sip_stack *arg) {
  (void)wait;
  (void)arg;
  command c;
  while (read(stack->pipe_read, &c, sizeof c) == (ssize_t)sizeof c) {
    if (c.op == COMMAND_STOP) {
      begin_stop(stack);
    } else if (c.op == COMMAND_REGISTER && c.account >= 0 && c.account < stack->count && !stack->stopping) {
      start_registration(&stack->accounts[c.account]);
    } else if (c.op == COMMAND_ANSWER && c.account >= 0 && c.account < stack->count) {
      answer_call(&stack->accounts[c.account], c.call_id, c.status);
    }
    free(c.call_id);
  }
  return 0;
}

static void start_account(struct callalert_sip_account_state *a) {
  struct callalert_sip_stack *stack = a->stack;
  int tls = a->bind_url && strncmp(a->bind_url, "sips:", 5) == 0;
  a->nua = nua_create(
    stack->root, event_callback, a, NUTAG_URL(tls ? NULL : URL_STRING_MAKE(a->bind_url)),
    TAG_IF(tls, NUTAG_SIPS_URL(URL_STRING_MAKE(a->bind_url))), NUTAG_MEDIA_ENABLE(0), NUTAG_AUTOANSWER(0),
    NUTAG_AUTOALERT(0), NUTAG_ENABLEINVITE(1), NUTAG_ALLOW("INVITE, ACK, BYE, CANCEL, OPTIONS"),
    TAG_IF(a->contact_user, NUTAG_M_USERNAME(a->contact_user)),
    TAG_IF(a->outbound_proxy, NUTAG_PROXY(URL_STRING_MAKE(a->outbound_proxy))),
    // NAT: keep the binding open with CRLF keepalives and learn the public address from Via's received=; no
    // OPTIONS probes, which plain registrars (and SIPp) do not answer.
    NUTAG_OUTBOUND("natify no-options-keepalive no-validate"), TAG_IF(a->keepalive_ms, NUTAG_KEEPALIVE(a->keepalive_ms)),
    TAG_IF(a->certificate_dir, NUTAG_CERTIFICATE_DIR(a->certificate_dir)),
    TAG_IF(tls, TPTAG_TLS_VERIFY_POLICY(a->verify ? TPTLS_VERIFY_OUTGOING : TPTLS_VERIFY_NONE)), TAG_END());
  if (!a->nua) {
    char reason[256];
    snprintf(reason, sizeof reason, "could not listen on %s: %s", a->bind_url ? a->bind_url : "(default)",
             strerror(errno ? errno : EINVAL));
    emit_status(a, CALLALERT_SIP_START_FAILED, 500, reason);
    return;
  }
  emit_status(a, CALLALERT_SIP_STARTED, 0, a->bind_url);
  start_registration(a);
}

// sofia-sip's own diagnostics ("tport_udp_error: Connection refused") go to the stack whose thread wrote them, as
// CALLALERT_SIP_LOG events, one per line, instead of to standard error.
static __thread struct callalert_sip_stack *current_stack;
static __thread char log_line[512];
static __thread size_t log_length;

static void forward_log(void *stream, char const *format, va_list arguments) {
  (void)stream;
  char text[512];
  vsnprintf(text, sizeof text, format, arguments);
  for (const char *c = text; *c; c++) {
    if (*c == '\n' || log_length == sizeof log_line - 1) {
      log_line[log_length] = 0;
      if (current_stack && log_length > 0 && current_stack->count > 0) {
        callalert_sip_event event;
        memset(&event, 0, sizeof event);
        event.kind = CALLALERT_SIP_LOG;
        event.phrase = log_line;
        current_stack->callback(current_stack->context, &event);
      }
      log_length = 0;
      if (*c == '\n') continue;
    }
    log_line[log_length++] = *c == '\t' ? ' ' : *c;
  }
}

static pthread_once_t extend_once = PTHREAD_ONCE_INIT;
static void extend_message_class(void) {
  sip_update_default_mclass(sip_extend_mclass(NULL));
  su_log_redirect(su_log_default, forward_log, NULL);
}

int callalert_sip_stack_run(callalert_sip_stack *stack) {
#ifdef __linux__
  pthread_setname_np(pthread_self(), "callalert-sip");  // for top -H and ps -L
#endif
  if (su_init() != 0) return -1;
  // P-Asserted-Identity and Remote-Party-ID are "extra" headers: parsed only once the default message class
  // is extended with them (done once per process; later calls change nothing).
  pthread_once(&extend_once, extend_message_class);
  current_stack = stack;
  stack->root = su_root_create(stack);
  if (!stack->root) {
    su_deinit();
    return -1;
  }
  // NUA would run its SIP stack in a clone thread of its own per user agent; without threading the clones run
  // in this thread, so the whole stack is the one thread the daemon started.
  su_root_threading(stack->root, 0);
  su_wait_t wait[1];
  if (su_wait_create(wait, stack->pipe_read, SU_WAIT_IN) != 0 ||
      su_root_register(stack->root, wait, pipe_readable, stack, 0) < 0) {
    su_root_destroy(stack->root);
    su_deinit();
    return -1;
  }
  for (int i = 0; i < stack->count; i++) start_account(&stack->accounts[i]);
  su_root_run(stack->root);
  su_root_unregister(stack->root, wait, pipe_readable, stack);
  int clean = 1;
  for (int i = 0; i < stack->count; i++) {
    if (stack->accounts[i].nua && !stack->accounts[i].shut_down) clean = 0;
  }
  if (clean) {
    for (int i = 0; i < stack->count; i++) {
      if (stack->accounts[i].nua) nua_destroy(stack->accounts[i].nua);
      stack->accounts[i].nua = NULL;
    }
    if (stack->shutdown_timer) su_timer_destroy(stack->shutdown_timer);
    if (stack->trim_timer) su_timer_destroy(stack->trim_timer);
    su_root_destroy(stack->root);
    su_deinit();
  }
  // Otherwise a user agent did not finish its shutdown in time: it is left as it is (the process is ending or
  // the test is over), which is safer than destroying a stack that still has work queued.
  stack->root = NULL;
  current_stack = NULL;
  return 0;
}
