//! A mini tool's settings menu without the app (`finch minitool menu`, issue 44): the menu its
//! `ctx.settingsMenu.register(provider)` gives (`getMenu`), and one item run (`execute`), with
//! every dialog the item opens answered by a `MenuFace` — the terminal's prompts, or the
//! `--set` values of a run without one. A modal stays open while the mini tool works and
//! polls, as in the app: its handle's `close(action)` (the bootstrap tells the host, `ui.close`)
//! ends it, so a QR login closes itself once the code was scanned.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;

use serde_json::{Value, json};

use super::protocol::HostRequest;
use super::rpc::{MainMsg, Pending};
use super::ui::{self, Dialog};
use super::{Inner, MiniToolRuntime, lock};

/// The dialogs a menu item can open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// `ui.showConfirmDialog`: answered `{confirmed}`.
    Confirm,
    /// `ui.showModalDialog`: `{action, values?}`.
    Modal,
    /// `exec.ui.requestForm`: `{submitted, values}`.
    Form,
}

/// Who answers a menu item's dialogs.
pub trait MenuFace {
    /// Answers the dialog `params` (its options as the mini tool gave them) of the mini tool
    /// named `name`, in the shape finch.d.ts gives `ask`; `closed()` turns true once the mini
    /// tool closed it itself (a modal's `close(action)`), when the answer is no longer wanted.
    /// `Err`: it cannot be answered (a required field nobody gave); the mini tool is told
    /// "dismissed", and the menu item's run ends with this error.
    fn dialog(
        &mut self,
        ask: Ask,
        name: &str,
        params: &Value,
        closed: &dyn Fn() -> bool,
    ) -> Result<Value, String>;
}

/// Why a menu could not be shown or an item did not run.
#[derive(Debug, thiserror::Error)]
pub enum MenuError {
    #[error("{0}")]
    NotStarted(String),
    #[error("{0}")]
    Failed(String),
    /// A dialog nobody could answer (`MenuFace::dialog`'s error).
    #[error("{0}")]
    Unanswered(String),
}

impl MiniToolRuntime {
    /// The items of the settings menu of mini tool `id` (`item: None`), or runs its item
    /// `item` (its `execute` resolves `null`). The runtime must have been started with it.
    pub fn settings_menu(
        &self,
        id: &str,
        item: Option<&str>,
        face: &mut dyn MenuFace,
    ) -> Result<Value, MenuError> {
        self.inner.settings_menu(id, item, face)
    }
}

impl Inner {
    fn settings_menu(
        self: &Arc<Inner>,
        id: &str,
        item: Option<&str>,
        face: &mut dyn MenuFace,
    ) -> Result<Value, MenuError> {
        let inst = self
            .instances
            .iter()
            .find(|i| i.id == id)
            .cloned()
            .ok_or_else(|| MenuError::NotStarted(format!("{id} did not start")))?;
        let conn = self.ensure_running(&inst).map_err(MenuError::NotStarted)?;
        let seq = self.call_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let route = format!("menu_{:x}_{seq}", std::process::id());
        let (tx, rx) = mpsc::channel();
        let _route = super::call::CallRoute::set(self, route.clone(), tx.clone());
        conn.request(
            HostRequest::SettingsMenu,
            json!({"toolCallId": route, "minitoolId": id, "item": item}),
            Pending::Main { tx, tag: 0 },
        )
        .map_err(MenuError::Failed)?;
        let mut unanswered = None;
        loop {
            let Ok(message) = rx.recv() else {
                return Err(MenuError::Failed(format!("{id} stopped")));
            };
            match message {
                MainMsg::Reply { tag: 0, result } => {
                    if let Some(why) = unanswered {
                        return Err(MenuError::Unanswered(why));
                    }
                    return result.map_err(|e| MenuError::Failed(inst.explain(&e.message)));
                }
                MainMsg::Prompt {
                    from,
                    id: request,
                    dialog,
                    params,
                } => {
                    let ask = match dialog {
                        Dialog::Confirm => Ask::Confirm,
                        Dialog::Modal => Ask::Modal,
                        Dialog::Form => Ask::Form,
                    };
                    let dialog_id = params
                        .get("dialogId")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let closed = || {
                        dialog_id
                            .as_ref()
                            .is_some_and(|d| lock(&self.closed_dialogs).contains(d))
                    };
                    let answer = if unanswered.is_some() {
                        Err(String::new())
                    } else {
                        face.dialog(ask, &inst.display_name, &params, &closed)
                    };
                    match answer {
                        Ok(value) => from.reply(request, Ok(value)),
                        Err(why) => {
                            if unanswered.is_none() {
                                unanswered = Some(why);
                            }
                            from.reply(request, Ok(ui::no_person(dialog)));
                        }
                    }
                    if let Some(d) = &dialog_id {
                        lock(&self.closed_dialogs).retain(|c| c != d);
                    }
                }
                MainMsg::Show { from, id, .. } => from.reply(id, Ok(Value::Null)),
                MainMsg::Permit { then, .. } => then(crate::host::prompt::CardAnswer::Deny),
                MainMsg::Reply { .. }
                | MainMsg::Unseen(_)
                | MainMsg::Progress(_)
                | MainMsg::Cancelled => {}
            }
        }
    }
}
