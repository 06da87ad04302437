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
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use anyhow::Context as _;
use axum::http::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};
use tower::ServiceExt as _;

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
    let limits = app.sessions.settings().connections.clone();
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
        let router = crate::router(app.clone());
        let stopped = stopped.clone();
        let serving = Arc::clone(&serving);
        let header_timeout = limits.header_timeout;
        std::thread::Builder::new()
            .name(format!("agentbench-serve-{index}"))
            .spawn(move || {
                let leaving = Leaving(serving);
                let served = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("cannot start a serving thread's runtime")
                    .map(|runtime| {
                        runtime.block_on(async move {
                            serve_connections(connections, router, header_timeout, stopped).await;
                            leaving.wait_for_the_others().await;
                        })
                    });
                let _ = done.send(served);
            })
            .context("cannot start a serving thread")?;
        queues.push(queue);
        finished.push(finish);
    }
    // Each connection holds a permit for its life; without one to take, accepting waits and
    // further connections queue in the listen backlog.
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    runtime.block_on(async move {
        tokio::pin!(shutdown);
        let mut next = 0;
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&permits).acquire_owned() => {
                    permit.expect("the semaphore is never closed")
                }
                () = &mut shutdown => break,
            };
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
                        let mut connection = Connection { stream, peer, permit };
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

/// A connection accepted for a serving thread, with its place among the open connections.
struct Connection {
    stream: std::net::TcpStream,
    /// Its peer's address, which each request carries (`ConnectInfo`) for the rate limits.
    peer: std::net::SocketAddr,
    permit: OwnedSemaphorePermit,
}

/// Serves the connections handed to this thread until `stopped`, then lets those open finish
/// their requests under way (graceful shutdown) and returns. A request's head must arrive within
/// `header_timeout` of the connection being ready for it, which also closes idle connections.
async fn serve_connections(
    mut connections: mpsc::UnboundedReceiver<Connection>,
    router: axum::Router,
    header_timeout: Duration,
    mut stopped: watch::Receiver<bool>,
) {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    // Every connection's task holds a sender; once all have ended, `all_ended` yields `None`.
    let (open, mut all_ended) = mpsc::channel::<()>(1);
    loop {
        let connection = tokio::select! {
            connection = connections.recv() => connection,
            _ = stopped.wait_for(|stop| *stop) => None,
        };
        // `None`: the accepting thread has stopped, so no more connections come.
        let Some(Connection {
            stream,
            peer,
            permit,
        }) = connection
        else {
            break;
        };
        let stream = match TcpStream::from_std(stream) {
            Ok(stream) => stream,
            Err(error) => {
                tracing::warn!(%error, "cannot take over a connection");
                continue;
            }
        };
        let service = TowerToHyperService::new(router.clone().map_request(
            move |request: Request<Incoming>| {
                let mut request = request.map(axum::body::Body::new);
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                request
            },
        ));
        // The permit goes with the stream, so that a connection upgraded to a WebSocket counts
        // until the socket closes.
        let io = TokioIo::new(Permitted {
            stream,
            _permit: permit,
        });
        let connection = builder.serve_connection(io, service).with_upgrades();
        let (mut stopped, open) = (stopped.clone(), open.clone());
        tokio::spawn(async move {
            tokio::pin!(connection);
            let stop = async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            };
            let served = tokio::select! {
                served = connection.as_mut() => served,
                () = stop => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = served {
                tracing::debug!(%error, "a connection ended with an error");
            }
            drop(open);
        });
    }
    drop(open);
    let _ = all_ended.recv().await;
}

/// A connection's stream together with its permit, released when the stream is dropped.
struct Permitted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for Permitted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(context, buffer)
    }
}

impl AsyncWrite for Permitted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        bytes: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(context, bytes)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffers: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(context, buffers)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(
        mut self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(context)
    }
}
