//! A fake of the WeChat iLink bot platform on loopback, as much of it as a bot needs: a long
//! poll (`POST /ilink/bot/getupdates` with the last `get_updates_buf`, held open until a message
//! comes or a second passed) and `POST /ilink/bot/sendmessage`. Messages a test pushes are
//! handed out after the cursor the poll names, so a bot that lost its process and polls again
//! with its stored cursor gets them again, as from the real platform.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a poll is held open with nothing to hand out.
const HOLD: Duration = Duration::from_secs(1);

#[derive(Default)]
struct State {
    /// Every inbound message so far; a cursor is an index into this.
    inbound: Vec<Value>,
    /// What the bot sent.
    sent: Vec<Value>,
    polls: usize,
}

pub struct FakeIlink {
    pub base: String,
    /// The listener's port, to find its socket in `/proc/net/tcp`.
    pub port: u16,
    state: Arc<(Mutex<State>, Condvar)>,
}

impl FakeIlink {
    pub fn start() -> FakeIlink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake platform");
        let port = listener.local_addr().expect("its address").port();
        let state = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        FakeIlink {
            base: format!("http://127.0.0.1:{port}"),
            port,
            state,
        }
    }

    /// A chat message from `user` arrives on the platform.
    pub fn push(&self, user: &str, id: u64, text: &str) {
        let (lock, changed) = &*self.state;
        lock.lock().unwrap().inbound.push(json!({
            "message_id": id,
            "from_user_id": user,
            "context_token": format!("ctx-{id}"),
            "message_type": 1,
            "item_list": [{"type": 1, "text_item": {"text": text}}],
        }));
        changed.notify_all();
    }

    /// Waits until the bot has sent `n` messages (at most `limit`), and returns what it sent.
    pub fn await_sent(&self, n: usize, limit: Duration) -> Vec<Value> {
        self.await_state(limit, |s| s.sent.len() >= n);
        self.sent()
    }

    /// Waits until the bot has polled `n` times in all.
    pub fn await_polls(&self, n: usize, limit: Duration) -> bool {
        self.await_state(limit, |s| s.polls >= n)
    }

    pub fn sent(&self) -> Vec<Value> {
        self.state.0.lock().unwrap().sent.clone()
    }

    fn await_state(&self, limit: Duration, done: impl Fn(&State) -> bool) -> bool {
        let (lock, changed) = &*self.state;
        let deadline = Instant::now() + limit;
        let mut state = lock.lock().unwrap();
        while !done(&state) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = changed.wait_timeout(state, left).unwrap().0;
        }
        true
    }
}

/// The text of a message the bot sent.
pub fn text_of(sent: &Value) -> &str {
    sent["msg"]["item_list"][0]["text_item"]["text"]
        .as_str()
        .unwrap_or_default()
}

fn serve(stream: TcpStream, shared: &(Mutex<State>, Condvar)) {
    let mut reader = BufReader::new(&stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    let answer = match path {
        "/ilink/bot/getupdates" => updates(&body, shared),
        "/ilink/bot/sendmessage" => {
            let (lock, changed) = shared;
            lock.lock().unwrap().sent.push(body);
            changed.notify_all();
            json!({"ret": 0})
        }
        _ => json!({"ret": -1, "errmsg": "no such path"}),
    };
    let text = answer.to_string();
    let _ = write!(
        &stream,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
}

fn updates(body: &Value, shared: &(Mutex<State>, Condvar)) -> Value {
    let cursor: usize = body["get_updates_buf"]
        .as_str()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (lock, changed) = shared;
    let mut state = lock.lock().unwrap();
    state.polls += 1;
    changed.notify_all();
    let deadline = Instant::now() + HOLD;
    while state.inbound.len() <= cursor {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        state = changed.wait_timeout(state, left).unwrap().0;
    }
    let msgs: Vec<Value> = state.inbound.iter().skip(cursor).cloned().collect();
    json!({"ret": 0, "msgs": msgs, "get_updates_buf": state.inbound.len().max(cursor).to_string()})
}
