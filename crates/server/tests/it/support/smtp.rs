//! A real, minimal SMTP server on 127.0.0.1 for the tests (RFC 5321's core): it greets,
//! takes EHLO or HELO (advertising no extension: no STARTTLS, no AUTH), MAIL FROM, RCPT
//! TO, DATA (dot-unstuffed), RSET, NOOP and QUIT, and keeps every message it accepted. It
//! can be told to refuse a stage with a 4xx or 5xx reply, for every recipient or one, and
//! stopped. Every read is bounded: lines, messages and commands per connection.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Longest command or text line taken (RFC 5321 allows 512 and 1000 octets).
const MAX_LINE: u64 = 4_096;
/// Largest message taken.
const MAX_MESSAGE: usize = 1024 * 1024;
/// Commands one connection may send.
const MAX_COMMANDS: usize = 1_000;

/// Where a transaction can be refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The reply to `RCPT TO`.
    Recipient,
    /// The reply after the message's final dot.
    Message,
}

/// A refusal: a stage, the reply, and the recipient it is for (`None`: every one).
#[derive(Clone, Debug)]
struct Refusal {
    stage: Stage,
    recipient: Option<String>,
    reply: String,
}

/// A message the server accepted.
#[derive(Clone, Debug)]
pub struct ReceivedMail {
    /// The envelope: `MAIL FROM` and every `RCPT TO`.
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent, dot-unstuffed, lines ending in CRLF.
    pub data: String,
}

#[derive(Default)]
struct State {
    received: Vec<ReceivedMail>,
    refusals: Vec<Refusal>,
    /// Every `MAIL FROM` and `RCPT TO` with the reply given, in order: the attempts.
    transcript: Vec<(String, u16)>,
}

pub struct SmtpServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl SmtpServer {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = CancellationToken::new();
        let task = tokio::spawn(serve(listener, state.clone(), stop.clone()));
        Self {
            addr,
            state,
            stop,
            task,
        }
    }

    /// `smtp://127.0.0.1:PORT`: plain, since it offers no STARTTLS.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// From now on, answer `stage` with `reply` (e.g. `451 4.3.0 try later`), for
    /// `recipient` only or for every one; replaces earlier refusals.
    pub fn refuse(&self, stage: Stage, recipient: Option<&str>, reply: &str) {
        let code: u16 = reply[..3].parse().expect("a reply code");
        assert!(
            (400..600).contains(&code),
            "{reply}: a refusal is 4xx or 5xx"
        );
        self.state.lock().unwrap().refusals = vec![Refusal {
            stage,
            recipient: recipient.map(str::to_owned),
            reply: reply.to_owned(),
        }];
    }

    pub fn received(&self) -> Vec<ReceivedMail> {
        self.state.lock().unwrap().received.clone()
    }

    /// How many transactions for `recipient` reached `RCPT TO`, and the codes they got.
    pub fn recipient_replies(&self, recipient: &str) -> Vec<u16> {
        let command = format!("RCPT TO:<{recipient}>");
        self.state
            .lock()
            .unwrap()
            .transcript
            .iter()
            .filter(|(line, _)| line.eq_ignore_ascii_case(&command))
            .map(|(_, code)| *code)
            .collect()
    }

    /// Stops listening and ends every connection.
    pub async fn stop(mut self) {
        self.stop.cancel();
        let _ = (&mut self.task).await;
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve(listener: TcpListener, state: Arc<Mutex<State>>, stop: CancellationToken) {
    loop {
        let (stream, _) = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => return,
            },
        };
        let (state, stop) = (state.clone(), stop.clone());
        tokio::spawn(async move {
            let (read, write) = stream.into_split();
            tokio::select! {
                () = stop.cancelled() => {}
                () = session(BufReader::new(read), write, &state) => {}
            }
        });
    }
}

/// One line, without its line ending; `None` at the end of the stream or past
/// [`MAX_LINE`].
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> Option<String> {
    let mut line = Vec::new();
    let read = reader
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)
        .await
        .ok()?;
    if read == 0 || !line.ends_with(b"\n") {
        return None;
    }
    line.pop();
    if line.ends_with(b"\r") {
        line.pop();
    }
    String::from_utf8(line).ok()
}

async fn reply(write: &mut OwnedWriteHalf, text: &str) -> bool {
    write
        .write_all(format!("{text}\r\n").as_bytes())
        .await
        .is_ok()
}

/// The address in `FROM:<a@b> …` or `TO:<a@b>`.
fn path_of(argument: &str) -> Option<String> {
    let start = argument.find('<')?;
    let end = argument[start..].find('>')? + start;
    Some(argument[start + 1..end].to_owned())
}

async fn session<R: AsyncBufRead + Unpin>(
    mut read: R,
    mut write: OwnedWriteHalf,
    state: &Mutex<State>,
) {
    if !reply(&mut write, "220 smtp.test ESMTP ready").await {
        return;
    }
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    for _ in 0..MAX_COMMANDS {
        let Some(line) = read_line(&mut read).await else {
            return;
        };
        let (verb, argument) = line.split_once(' ').unwrap_or((&line, ""));
        let verb = verb.to_ascii_uppercase();
        let refusal = |stage: Stage, recipient: Option<&str>| {
            let state = state.lock().unwrap();
            state
                .refusals
                .iter()
                .find(|r| {
                    r.stage == stage
                        && r.recipient.as_deref().is_none_or(|only| {
                            recipient.map_or(to.iter().any(|t| t == only), |rcpt| rcpt == only)
                        })
                })
                .map(|r| r.reply.clone())
        };
        let answer = match verb.as_str() {
            "EHLO" | "HELO" => "250 smtp.test".to_owned(),
            "NOOP" => "250 OK".to_owned(),
            "RSET" => {
                from = None;
                to.clear();
                "250 OK".to_owned()
            }
            "QUIT" => {
                reply(&mut write, "221 Bye").await;
                return;
            }
            "MAIL" => match path_of(argument) {
                Some(path) if from.is_none() => {
                    from = Some(path);
                    to.clear();
                    "250 OK".to_owned()
                }
                Some(_) => "503 5.5.1 Nested MAIL command".to_owned(),
                None => "501 5.5.4 Syntax: MAIL FROM:<address>".to_owned(),
            },
            "RCPT" => match (path_of(argument), &from) {
                (Some(path), Some(_)) => match refusal(Stage::Recipient, Some(&path)) {
                    Some(refused) => refused,
                    None => {
                        to.push(path);
                        "250 OK".to_owned()
                    }
                },
                (_, None) => "503 5.5.1 MAIL first".to_owned(),
                (None, _) => "501 5.5.4 Syntax: RCPT TO:<address>".to_owned(),
            },
            "DATA" if to.is_empty() => "503 5.5.1 RCPT first".to_owned(),
            "DATA" => {
                if !reply(&mut write, "354 End data with <CR><LF>.<CR><LF>").await {
                    return;
                }
                let Some(data) = message(&mut read).await else {
                    reply(&mut write, "552 5.3.4 Message too big or cut short").await;
                    return;
                };
                let answer = match refusal(Stage::Message, None) {
                    Some(refused) => refused,
                    None => {
                        state.lock().unwrap().received.push(ReceivedMail {
                            from: from.clone().unwrap_or_default(),
                            to: to.clone(),
                            data,
                        });
                        "250 OK queued".to_owned()
                    }
                };
                from = None;
                to.clear();
                answer
            }
            _ => "502 5.5.2 Command not recognized".to_owned(),
        };
        if matches!(verb.as_str(), "MAIL" | "RCPT") {
            let code = answer[..3].parse().unwrap_or(0);
            state.lock().unwrap().transcript.push((line.clone(), code));
        }
        if !reply(&mut write, &answer).await {
            return;
        }
    }
}

/// The message after `DATA`, up to the line holding a lone dot, with the leading dot of
/// other lines that begin with one removed (RFC 5321 §4.5.2); `None` if it is cut short
/// or too big.
async fn message<R: AsyncBufRead + Unpin>(read: &mut R) -> Option<String> {
    let mut data = String::new();
    while data.len() <= MAX_MESSAGE {
        let line = read_line(read).await?;
        if line == "." {
            return Some(data);
        }
        data.push_str(line.strip_prefix('.').unwrap_or(&line));
        data.push_str("\r\n");
    }
    None
}

impl ReceivedMail {
    /// The header `name`'s value, unfolded, as sent.
    pub fn header(&self, name: &str) -> Option<String> {
        let (head, _) = self.data.split_once("\r\n\r\n")?;
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                if let Some(value) = &mut value {
                    value.push_str(line);
                }
                continue;
            }
            if value.is_some() {
                break;
            }
            if let Some((key, rest)) = line.split_once(':')
                && key.eq_ignore_ascii_case(name)
            {
                value = Some(rest.trim_start().to_owned());
            }
        }
        value
    }

    /// How many times the header `name` appears.
    pub fn header_count(&self, name: &str) -> usize {
        let head = self.data.split_once("\r\n\r\n").map_or("", |(h, _)| h);
        head.split("\r\n")
            .filter(|line| {
                line.split_once(':')
                    .is_some_and(|(key, _)| key.eq_ignore_ascii_case(name))
            })
            .count()
    }

    /// The subject, its RFC 2047 encoded words decoded.
    pub fn subject(&self) -> String {
        decode_words(&self.header("Subject").unwrap_or_default())
    }

    /// The body as text: decoded from its transfer encoding, lines ending in `\n`.
    pub fn text(&self) -> String {
        let (_, body) = self
            .data
            .split_once("\r\n\r\n")
            .expect("a header and a body");
        let encoding = self
            .header("Content-Transfer-Encoding")
            .unwrap_or_else(|| "7bit".into())
            .to_ascii_lowercase();
        let bytes = match encoding.as_str() {
            "base64" => STANDARD
                .decode(body.split_whitespace().collect::<String>())
                .expect("base64"),
            "quoted-printable" => quoted_printable(body),
            _ => body.as_bytes().to_vec(),
        };
        String::from_utf8(bytes)
            .expect("UTF-8")
            .replace("\r\n", "\n")
    }
}

/// Decodes quoted-printable text (RFC 2045 §6.7): `=XX` bytes and soft line breaks.
fn quoted_printable(text: &str) -> Vec<u8> {
    let text = text.replace("=\r\n", "");
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// Decodes RFC 2047 encoded words (`=?utf-8?b?…?=`, `=?utf-8?q?…?=`); the space between
/// two encoded words is dropped, as the RFC says.
fn decode_words(value: &str) -> String {
    let mut out = String::new();
    let mut last_was_word = false;
    for (i, token) in value.split_whitespace().enumerate() {
        let word = token
            .strip_prefix("=?")
            .and_then(|t| t.strip_suffix("?="))
            .and_then(|t| {
                let mut parts = t.splitn(3, '?');
                let (_charset, encoding, text) = (parts.next()?, parts.next()?, parts.next()?);
                let bytes = match encoding.to_ascii_lowercase().as_str() {
                    "b" => STANDARD.decode(text).ok()?,
                    "q" => quoted_printable(&text.replace('_', " ")),
                    _ => return None,
                };
                String::from_utf8(bytes).ok()
            });
        if i > 0 && !(last_was_word && word.is_some()) {
            out.push(' ');
        }
        last_was_word = word.is_some();
        out.push_str(word.as_deref().unwrap_or(token));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_words_and_quoted_printable_decode() {
        assert_eq!(
            decode_words("=?utf-8?b?UsOpaW5pdGlhbGlzZXI=?= =?utf-8?q?_le_mot?= de passe"),
            "Réinitialiser le mot de passe"
        );
        assert_eq!(
            quoted_printable("voil=C3=A0 =\r\nsuite"),
            "voilà suite".as_bytes()
        );
    }
}
