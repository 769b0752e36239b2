//! A fake provider CLI that keeps accounts in memory and honours the spec's timing rules:
//! accounts.refresh answers only once every provider's CLI was asked again, and
//! accounts.watchLogin answers at once while the login ends later.

use crate::now;
use contracts::agent::{
    Account, AccountSnapshot, AccountState, AccountsCreatePayload, AccountsSavePayload, ErrorCode,
    Timestamp, WireError,
};
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::oneshot;

/// How a login started with accounts.watchLogin ends.
#[derive(Clone, Debug)]
pub enum LoginMode {
    /// The CLI reports the login done after this long.
    After(Duration),
    /// The login ends when [`FakeCli::complete_login`] is called: tests decide when.
    Manual,
}

/// The accounts of every provider, as a CLI would report them.
pub struct FakeCli {
    login: LoginMode,
    delay: Duration,
    state: Arc<Mutex<State>>,
}

struct State {
    accounts: Vec<Account>,
    read_at: Timestamp,
    /// How many times each provider's CLI was asked.
    asks: BTreeMap<String, u64>,
    /// Logins waiting for [`FakeCli::complete_login`].
    logins: HashMap<String, oneshot::Sender<()>>,
    next: u64,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn no_account(id: &str) -> WireError {
    WireError::new(
        ErrorCode::UnknownAccount,
        format!("no account is called {id:?}"),
    )
}

impl FakeCli {
    /// The providers this CLI knows.
    pub const PROVIDERS: &'static [&'static str] = &["echo", "parrot"];

    /// A CLI with a logged-in `echo` account and a logged-out `parrot` one. Provider `i`
    /// takes `delay * (i + 1)` to answer a refresh.
    pub fn new(login: LoginMode, delay: Duration) -> FakeCli {
        let account = |id: &str, provider: &str, state: AccountState, identity: Option<&str>| {
            let mut account =
                Account::new(id, provider, format!("{provider} account"), true, state);
            account.identity = identity.map(str::to_owned);
            account
        };
        let accounts = vec![
            account(
                "a-echo",
                "echo",
                AccountState::LoggedIn,
                Some("person@example.com"),
            ),
            account("a-parrot", "parrot", AccountState::LoggedOut, None),
        ];
        let state = State {
            accounts,
            read_at: now(),
            asks: BTreeMap::new(),
            logins: HashMap::new(),
            next: 1,
        };
        FakeCli {
            login,
            delay,
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// The accounts as last read.
    pub fn snapshot(&self) -> AccountSnapshot {
        let s = lock(&self.state);
        AccountSnapshot::new(s.accounts.clone(), s.read_at)
    }

    /// How many times each provider's CLI was asked.
    pub fn asks(&self) -> BTreeMap<String, u64> {
        lock(&self.state).asks.clone()
    }

    /// Asks every provider's CLI again, side by side, and returns once all have answered.
    pub async fn refresh(&self) {
        let asks = Self::PROVIDERS.iter().enumerate().map(|(i, provider)| {
            let state = self.state.clone();
            let delay = self.delay * (i as u32 + 1);
            async move {
                tokio::time::sleep(delay).await;
                *lock(&state).asks.entry((*provider).to_owned()).or_default() += 1;
            }
        });
        futures_util::future::join_all(asks).await;
        lock(&self.state).read_at = now();
    }

    /// Changes an account's label, or makes it its provider's default.
    pub fn save(&self, payload: &AccountsSavePayload) -> Result<(), WireError> {
        let mut s = lock(&self.state);
        let at = s
            .accounts
            .iter()
            .position(|a| a.account_id == payload.account_id)
            .ok_or_else(|| no_account(&payload.account_id))?;
        if let Some(label) = &payload.label {
            s.accounts[at].label = label.clone();
        }
        if payload.is_default == Some(true) {
            let provider = s.accounts[at].provider.clone();
            for (i, a) in s.accounts.iter_mut().enumerate() {
                if a.provider == provider {
                    a.is_default = i == at;
                }
            }
        }
        Ok(())
    }

    /// Adds a logged-out account for a provider.
    pub fn create(&self, payload: &AccountsCreatePayload) -> Result<Account, WireError> {
        if !Self::PROVIDERS.contains(&payload.provider.as_str()) {
            return Err(WireError::new(
                ErrorCode::UnknownProvider,
                format!("no provider is called {:?}", payload.provider),
            ));
        }
        let mut s = lock(&self.state);
        let id = format!("a{}", s.next);
        s.next += 1;
        let is_default = !s.accounts.iter().any(|a| a.provider == payload.provider);
        let label = payload
            .label
            .clone()
            .unwrap_or_else(|| format!("{} account", payload.provider));
        let account = Account::new(
            id,
            payload.provider.clone(),
            label,
            is_default,
            AccountState::LoggedOut,
        );
        s.accounts.push(account.clone());
        Ok(account)
    }

    /// Starts a login: the account is `logging-in` at once. Answers a future that resolves
    /// once the CLI reports it logged in (`true`), or `false` when the account went away.
    pub fn start_login(
        &self,
        account_id: &str,
    ) -> Result<impl Future<Output = bool> + Send + 'static, WireError> {
        let mut s = lock(&self.state);
        let account = s
            .accounts
            .iter_mut()
            .find(|a| a.account_id == account_id)
            .ok_or_else(|| no_account(account_id))?;
        account.state = AccountState::LoggingIn;
        let (tx, rx) = oneshot::channel();
        s.logins.insert(account_id.to_owned(), tx);
        drop(s);
        let login = self.login.clone();
        let state = self.state.clone();
        let id = account_id.to_owned();
        Ok(async move {
            match login {
                LoginMode::After(delay) => tokio::time::sleep(delay).await,
                LoginMode::Manual => {
                    if rx.await.is_err() {
                        return false;
                    }
                }
            }
            let mut s = lock(&state);
            s.logins.remove(&id);
            let Some(account) = s.accounts.iter_mut().find(|a| a.account_id == id) else {
                return false;
            };
            account.state = AccountState::LoggedIn;
            account.identity = Some(format!("person@{}.example.com", account.provider));
            true
        })
    }

    /// Ends a login started in [`LoginMode::Manual`]; answers whether one was waiting.
    pub fn complete_login(&self, account_id: &str) -> bool {
        let waiting = lock(&self.state).logins.remove(account_id);
        waiting.is_some_and(|tx| tx.send(()).is_ok())
    }
}
