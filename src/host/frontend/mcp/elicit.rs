//! Permission cards and questions as MCP elicitation (SPEC §8.4, §8.7): the link to the
//! client that says whether it can elicit forms (`ClientLink`), the prompter that asks through
//! it, else on `/dev/tty`, else nobody (`ElicitingPrompter`), and the forms themselves — a
//! card's message and choices, a question's options — and how an answer reads back. A form
//! takes the shape of the negotiated protocol revision (`version`); a declined or cancelled
//! one is recorded as such, never as a person's deny.

use super::*;

/// The client a session is served to, as the prompter needs it: set by the serving loop when
/// the first request arrives, read by the prompter during a call.
#[derive(Clone, Default)]
pub struct ClientLink(Rc<RefCell<Option<Client>>>, pub(super) ServeOptions);

#[derive(Clone)]
pub(super) struct Client {
    peer: Peer<RoleServer>,
    /// The server's runtime, on its I/O thread.
    runtime: tokio::runtime::Handle,
}

impl ClientLink {
    pub fn new() -> ClientLink {
        ClientLink::default()
    }

    /// A link for a session served with `options`.
    pub fn with_options(options: ServeOptions) -> ClientLink {
        ClientLink(Rc::default(), options)
    }

    pub(super) fn attach(&self, peer: &Peer<RoleServer>, runtime: &tokio::runtime::Handle) {
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            *slot = Some(Client {
                peer: peer.clone(),
                runtime: runtime.clone(),
            });
        }
    }

    /// Forgets the client (the session was served).
    pub(super) fn detach(&self) {
        self.0.borrow_mut().take();
    }

    /// The client, when it declared form elicitation under a revision that has it.
    pub(super) fn eliciting(&self) -> Option<Client> {
        let slot = self.0.borrow();
        let client = slot.as_ref()?;
        (client
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
            && client.dialect() != version::Dialect::None)
            .then(|| client.clone())
    }

    /// Whether a client is attached (from its first call on): a card that finds no eliciting
    /// client then went unshown because of that client, not because nobody was there.
    pub(super) fn attached(&self) -> bool {
        self.0.borrow().is_some()
    }
}

/// How an elicitation ended.
pub(super) enum Elicited {
    Answered(ElicitResult),
    TimedOut,
    /// The request failed (the client errored, the connection closed): ask someone else.
    Failed(String),
    /// The call was cancelled first, and the elicitation with it.
    Withdrawn,
}

impl Client {
    /// The elicitation of the negotiated revision (`version`).
    pub(super) fn dialect(&self) -> version::Dialect {
        self.peer
            .peer_info()
            .map_or(version::Dialect::Current, |info| {
                version::Dialect::of(&info.protocol_version)
            })
    }

    /// Sends one form elicitation and waits for its answer, at most `timeout` (the host
    /// thread waits; the server's runtime goes on answering on its own thread). Under
    /// 2025-06-18 the form is rewritten for it, and its answer back (`version`). When
    /// `cancel` is set meanwhile, the elicitation is cancelled (`notifications/cancelled` for
    /// its request) and this returns `Withdrawn` at once.
    pub(super) fn elicit(
        &self,
        message: String,
        schema: ElicitationSchema,
        timeout: Duration,
        cancel: Option<&Cancel>,
    ) -> Elicited {
        if cancel.is_some_and(Cancel::is_cancelled) {
            return Elicited::Withdrawn;
        }
        let original = (self.dialect() == version::Dialect::Legacy)
            .then(|| serde_json::to_value(&schema).ok())
            .flatten();
        let schema = match &original {
            Some(form) => serde_json::from_value(version::legacy_schema(form)).unwrap_or(schema),
            None => schema,
        };
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: schema,
            },
        ));
        let options = PeerRequestOptions::with_timeout(timeout);
        let withdraw = Arc::new(tokio::sync::Notify::new());
        if let Some(cancel) = cancel {
            let wake = Arc::clone(&withdraw);
            cancel.on_cancel(move || wake.notify_one());
        }
        let peer = self.peer.clone();
        let (tx, rx) = std_mpsc::channel();
        self.runtime.spawn(async move {
            let asked = async {
                let handle = peer.send_request_with_option(request, options).await?;
                let id = handle.id.clone();
                tokio::select! {
                    answer = handle.await_response() => answer.map(Some),
                    () = withdraw.notified() => {
                        let why = "the call it asks about was cancelled".to_string();
                        let params = CancelledNotificationParam::new(Some(id), Some(why));
                        let _ = peer.notify_cancelled(params).await;
                        Ok(None)
                    }
                }
            };
            // rmcp times the request out itself; the outer bound only makes sure this never
            // waits past the card timeout whatever the transport does.
            let answer = tokio::time::timeout(timeout + Duration::from_secs(1), asked).await;
            let _ = tx.send(answer);
        });
        match rx.recv() {
            Ok(Ok(Ok(Some(ClientResult::ElicitResult(mut result))))) => {
                if let Some(form) = &original {
                    result.content = result
                        .content
                        .take()
                        .map(|c| version::legacy_answer(form, c));
                }
                Elicited::Answered(result)
            }
            Ok(Ok(Ok(Some(_)))) => Elicited::Failed("the client answered something else".into()),
            Ok(Ok(Ok(None))) => Elicited::Withdrawn,
            Ok(Ok(Err(ServiceError::Timeout { .. })) | Err(_)) => Elicited::TimedOut,
            Ok(Ok(Err(e))) => Elicited::Failed(e.to_string()),
            Err(_) => Elicited::Failed("the MCP server stopped".into()),
        }
    }
}

/// Answers cards and questions through the MCP client when it can elicit, else through
/// `fallback` (the terminal, or nobody).
pub struct ElicitingPrompter {
    link: ClientLink,
    fallback: Box<dyn Prompter>,
    timeout: Duration,
}

impl ElicitingPrompter {
    pub fn new(
        link: ClientLink,
        fallback: Box<dyn Prompter>,
        timeout: Duration,
    ) -> ElicitingPrompter {
        ElicitingPrompter {
            link,
            fallback,
            timeout,
        }
    }
}

impl ElicitingPrompter {
    /// A card through the client's form elicitation, else `fallback`; taken back when
    /// `cancel` is set while it is open.
    pub(super) fn ask_card(&mut self, card: &Card, cancel: Option<&Cancel>) -> CardAnswer {
        let fallback = |prompter: &mut Box<dyn Prompter>| match cancel {
            Some(cancel) => prompter.card_until(card, cancel),
            None => prompter.card(card),
        };
        let Some(client) = self.link.eliciting() else {
            return match fallback(&mut self.fallback) {
                CardAnswer::Unavailable if self.link.attached() => CardAnswer::NoElicitation,
                answer => answer,
            };
        };
        match client.elicit(card_message(card), card_schema(card), self.timeout, cancel) {
            Elicited::Answered(result) => card_answer(&result),
            Elicited::TimedOut => CardAnswer::TimedOut,
            Elicited::Withdrawn => CardAnswer::Withdrawn,
            Elicited::Failed(why) => {
                crate::eline!(
                    "warning: the MCP client could not show the permission card for {} ({why}); asking without it",
                    card.tool
                );
                fallback(&mut self.fallback)
            }
        }
    }
}

impl Prompter for ElicitingPrompter {
    fn card(&mut self, card: &Card) -> CardAnswer {
        self.ask_card(card, None)
    }

    fn card_until(&mut self, card: &Card, cancel: &Cancel) -> CardAnswer {
        self.ask_card(card, Some(cancel))
    }

    fn question(&mut self, question: &Question) -> QuestionAnswer {
        let Some(client) = self.link.eliciting() else {
            return self.fallback.question(question);
        };
        let Some(schema) = question_schema(question) else {
            return self.fallback.question(question);
        };
        match client.elicit(question_message(question), schema, self.timeout, None) {
            Elicited::Answered(result) => question_answer(question, &result),
            Elicited::TimedOut | Elicited::Withdrawn => QuestionAnswer::TimedOut,
            Elicited::Failed(why) => {
                crate::eline!(
                    "warning: the MCP client could not show the question ({why}); asking without it"
                );
                self.fallback.question(question)
            }
        }
    }
}

/// The values of the card form's `decision` field.
pub(super) const ALLOW_ONCE: &str = "allowOnce";

pub(super) const ALLOW_FOR_SESSION: &str = "allowForSession";

pub(super) const ALLOW_UNSANDBOXED: &str = "allowUnsandboxed";

pub(super) const DENY: &str = "deny";

pub(super) const DENY_WITH_REASON: &str = "denyWithReason";

/// The card as the elicitation's message: what would run, who asks, why.
pub(super) fn card_message(card: &Card) -> String {
    let mut text = if card.title.is_empty() || card.title == card.tool {
        format!("Permission needed: {}", card.tool)
    } else {
        format!("Permission needed: {} — {}", card.tool, card.title)
    };
    // The whole command, never cut; a long one says how long it is, so nobody takes the
    // head for all of it.
    let chars = card.summary.chars().count();
    if chars > crate::host::prompt::LONG_SUMMARY {
        text.push_str(&format!(
            "\n({} characters; the whole of it follows, to its last character)",
            chars
        ));
    }
    text.push_str(&format!("\n{}", card.summary));
    text.push_str(&format!("\nLayer: {}", card.layer));
    if let Some(owner) = &card.owner {
        text.push_str(&format!(" · owner: {owner}"));
    }
    text.push_str(&format!(" · risk: {}", card.risk.as_str()));
    text.push_str(&format!("\nWhy: {}", card.reason));
    if let Some(sandbox) = &card.sandbox {
        text.push_str(&format!("\nSandbox: {sandbox}"));
    }
    text
}

/// The card's form: one choice (only the answers this card allows) and an optional reason.
pub(super) fn card_schema(card: &Card) -> ElicitationSchema {
    let mut choices = vec![json!({"const": ALLOW_ONCE, "title": "Allow once"})];
    if card.session_allow_offered {
        choices.push(json!({"const": ALLOW_FOR_SESSION, "title": "Allow for this session"}));
    }
    choices.push(json!({"const": DENY, "title": "Deny"}));
    choices.push(json!({"const": DENY_WITH_REASON, "title": "Deny and tell the model why"}));
    // Last, as on the terminal card.
    if card.unsandboxed_offered {
        choices
            .push(json!({"const": ALLOW_UNSANDBOXED, "title": "Allow once, without the sandbox"}));
    }
    form_schema(json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "oneOf": choices,
            },
            "reason": {
                "type": "string",
                "title": "Reason",
                "description": "When denying: what the model should know or do instead",
            },
        },
        "required": ["decision"],
    }))
}

/// A schema written here as JSON, as rmcp's type. The shapes are fixed by this module (only
/// labels vary), so a failure is a bug the unit tests catch; it still never panics: the
/// caller gets an empty form, which a client can only accept or decline.
pub(super) fn form_schema(schema: Value) -> ElicitationSchema {
    serde_json::from_value(schema).unwrap_or_else(|e| {
        crate::eline!("warning: internal error building an elicitation form: {e}");
        ElicitationSchema::new(Default::default())
    })
}

/// The client's answer to a card. Declining or cancelling the form does not run the call,
/// and is kept apart from a person's deny.
pub(super) fn card_answer(result: &ElicitResult) -> CardAnswer {
    match result.action {
        ElicitationAction::Accept => {}
        ElicitationAction::Decline => return CardAnswer::Declined,
        ElicitationAction::Cancel => return CardAnswer::Cancelled,
        // An action of a later revision: whatever it is, no allow.
        _ => return CardAnswer::Deny,
    }
    let field = |name: &str| {
        result
            .content
            .as_ref()
            .and_then(|c| c.get(name))
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or("")
    };
    let reason = field("reason");
    match field("decision") {
        ALLOW_ONCE => CardAnswer::AllowOnce,
        ALLOW_FOR_SESSION => CardAnswer::AllowForSession,
        ALLOW_UNSANDBOXED => CardAnswer::AllowUnsandboxed,
        // A reason typed beside a plain deny is still worth passing on.
        DENY | DENY_WITH_REASON if !reason.is_empty() => {
            CardAnswer::DenyWithReason(reason.to_string())
        }
        _ => CardAnswer::Deny,
    }
}

pub(super) fn question_message(question: &Question) -> String {
    match &question.header {
        Some(header) => format!("{header}\n{}", question.question),
        None => question.question.clone(),
    }
}

/// The question's form: the options (one, or several with `multiSelect`) and a free-text
/// answer. `None` when the options cannot be offered as a form (none at all).
pub(super) fn question_schema(question: &Question) -> Option<ElicitationSchema> {
    if question.options.is_empty() {
        return None;
    }
    let options: Vec<Value> = question
        .options
        .iter()
        .map(|o| {
            let title = match &o.description {
                Some(d) if !d.is_empty() => format!("{} — {d}", o.label),
                _ => o.label.clone(),
            };
            json!({"const": o.label, "title": title})
        })
        .collect();
    let answer = if question.multi_select {
        json!({"type": "array", "title": "Choose any", "items": {"anyOf": options}})
    } else {
        json!({"type": "string", "title": "Choose one", "oneOf": options})
    };
    Some(form_schema(json!({
        "type": "object",
        "properties": {
            "answer": answer,
            "other": {
                "type": "string",
                "title": "Or answer in your own words",
            },
        },
    })))
}

/// The client's answer to a question. Free text wins over the options; a label that is not an
/// option counts as free text; declining or cancelling answers nothing (not "none chosen").
pub(super) fn question_answer(question: &Question, result: &ElicitResult) -> QuestionAnswer {
    let empty = Map::new();
    let content = match (&result.action, &result.content) {
        (ElicitationAction::Accept, Some(Value::Object(map))) => map,
        (ElicitationAction::Accept, _) => &empty,
        _ => return QuestionAnswer::Dismissed,
    };
    if let Some(other) = content.get("other").and_then(Value::as_str)
        && !other.trim().is_empty()
    {
        return QuestionAnswer::Other(other.trim().to_string());
    }
    let is_option = |label: &str| question.options.iter().any(|o| o.label == label);
    match content.get("answer") {
        Some(Value::String(label)) if is_option(label) => {
            QuestionAnswer::Chosen(vec![label.clone()])
        }
        Some(Value::String(text)) if !text.trim().is_empty() => {
            QuestionAnswer::Other(text.trim().to_string())
        }
        Some(Value::Array(labels)) => QuestionAnswer::Chosen(
            labels
                .iter()
                .filter_map(Value::as_str)
                .filter(|l| is_option(l))
                .map(str::to_string)
                .collect(),
        ),
        _ => QuestionAnswer::Chosen(Vec::new()),
    }
}
