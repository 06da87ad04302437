//! `agentbench serve`'s threads: one single-threaded async runtime per core, each serving the
//! connections the accepting thread hands it in turn.
//!
//! A connection stays on one thread for its life, so a step's request, guest calls, commit and
//! answer run where its connection woke up. tokio's work-stealing runtime woke a second worker
//! for every request that arrived while the server was quiet (the woken task goes to the shared
//! queue, and a sleeping worker is told): a tenth or more of a lone client's server time per
//! step.
//! Work that may take milliseconds (a restore, a slow episode's calls, a commit that waits for
//! the disk) runs on the runtime's blocking threads, so a thread's other connections go on.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};

use crate::App;

/// Serves `app` on `listener` with `threads` serving threads until `shutdown` resolves, then
/// lets every request under way finish. Runs the accept loop on `runtime`, which must go on
/// being driven while the server runs: the tasks spawned on it (the store's, the expiry's) and
/// the connections it made (PostgreSQL's) live on it.
pub fn serve(
    runtime: &tokio::runtime::Runtime,
    app: Arc<App>,
    listener: TcpListener,
    threads: usize,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let address = listener.local_addr()?;
    let (stop, stopped) = watch::channel(false);
    let threads = threads.max(1);
    // A thread whose connections are done keeps driving its runtime until every thread's are:
    // the store's commits in flight are its tasks, and another thread's requests may wait on them.
    let serving = Arc::new(watch::Sender::new(threads));
    let mut queues = Vec::new();
    let mut finished = Vec::new();
    for index in 0..threads {
        let (queue, connections) = mpsc::unbounded_channel();
        let (done, finish) = oneshot::channel();
        let handed = Handed {
            connections,
            address,
        };
        let router = crate::router(app.clone());
        let mut stopped = stopped.clone();
        let serving = Arc::clone(&serving);
        std::thread::Builder::new()
            .name(format!("agentbench-serve-{index}"))
            .spawn(move || {
                let leaving = Leaving(serving);
                let served = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("cannot start a serving thread's runtime")
                    .and_then(|runtime| {
                        runtime.block_on(async move {
                            let served = axum::serve(handed, router)
                                .with_graceful_shutdown(async move {
                                    let _ = stopped.wait_for(|stop| *stop).await;
                                })
                                .await
                                .context("a serving thread failed");
                            leaving.wait_for_the_others().await;
                            served
                        })
                    });
                let _ = done.send(served);
            })
            .context("cannot start a serving thread")?;
        queues.push(queue);
        finished.push(finish);
    }
    runtime.block_on(async move {
        tokio::pin!(shutdown);
        let mut next = 0;
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let stream = match stream.into_std() {
                            Ok(stream) => stream,
                            Err(error) => {
                                tracing::warn!(%error, "cannot hand a connection over");
                                continue;
                            }
                        };
                        // A thread that stopped has failed; the others take its turns.
                        let mut connection = (stream, peer);
                        let mut taken = false;
                        for _ in 0..queues.len() {
                            let queue = &queues[next % queues.len()];
                            next += 1;
                            match queue.send(connection) {
                                Ok(()) => {
                                    taken = true;
                                    break;
                                }
                                Err(mpsc::error::SendError(back)) => connection = back,
                            }
                        }
                        if !taken {
                            break;
                        }
                    }
                    // Such as too many open files: the connection waits in the backlog.
                    Err(error) => {
                        tracing::warn!(%error, "cannot accept a connection");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                },
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        let _ = stop.send(true);
        for finish in finished {
            finish.await.context("a serving thread panicked")??;
        }
        anyhow::Ok(())
    })
}

/// A serving thread's place in the count of those still serving; leaving it (also by failing or
/// panicking) counts the thread out.
struct Leaving(Arc<watch::Sender<usize>>);

impl Leaving {
    /// Counts this thread out, then waits until every thread is.
    async fn wait_for_the_others(self) {
        let mut serving = self.0.subscribe();
        drop(self);
        let _ = serving.wait_for(|serving| *serving == 0).await;
    }
}

impl Drop for Leaving {
    fn drop(&mut self) {
        self.0.send_modify(|serving| *serving -= 1);
    }
}

/// The connections handed to one serving thread, as axum's listener.
struct Handed {
    connections: mpsc::UnboundedReceiver<(std::net::TcpStream, SocketAddr)>,
    address: SocketAddr,
}

impl axum::serve::Listener for Handed {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        loop {
            let Some((stream, peer)) = self.connections.recv().await else {
                // The accepting thread has stopped: no more connections come.
                return std::future::pending().await;
            };
            match TcpStream::from_std(stream) {
                Ok(stream) => return (stream, peer),
                Err(error) => tracing::warn!(%error, "cannot take over a connection"),
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.address)
    }
}
