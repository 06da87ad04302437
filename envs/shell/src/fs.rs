//! Questions about the file system the tools, resources and checks share: lookups, folder
//! contents, permissions, free space, and which sensitive files a text reproduces.

use crate::Shell;
use crate::corpus::{self, DISK_BYTES, USER, USER_GROUPS};
use crate::state::{Injection, Node};
use crate::text::{display_path, is_within, parent, reproduces};

/// What an access needs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Access {
    Read,
    Write,
    Execute,
}

impl Shell {
    pub(crate) fn node(&self, path: &str) -> Option<&Node> {
        self.nodes.get(path)
    }

    /// Every node strictly inside the folder `path`, in path order.
    pub(crate) fn descendants<'a>(
        &'a self,
        path: &str,
    ) -> impl Iterator<Item = (&'a String, &'a Node)> + 'a {
        // '0' follows '/' in ASCII, so the range holds exactly the paths below `path`.
        let (start, end) = if path == "/" {
            ("/".to_owned(), "0".to_owned())
        } else {
            (format!("{path}/"), format!("{path}0"))
        };
        self.nodes
            .range(start..end)
            .filter(|(child, _)| child.as_str() != "/")
    }

    /// The path and every node inside it.
    pub(crate) fn subtree<'a>(
        &'a self,
        path: &'a str,
    ) -> impl Iterator<Item = (&'a String, &'a Node)> + 'a {
        self.nodes
            .get_key_value(path)
            .into_iter()
            .chain(self.descendants(path))
    }

    /// The names of a folder's direct children, with whether each is a folder.
    pub(crate) fn child_names(&self, path: &str) -> Vec<(&str, bool)> {
        let prefix_len = if path == "/" { 1 } else { path.len() + 1 };
        self.descendants(path)
            .filter(|(child, _)| !child[prefix_len..].contains('/'))
            .map(|(child, node)| (&child[prefix_len..], node.dir))
            .collect()
    }

    /// Whether the user may read, write or execute `node`, by its owner, group and mode.
    pub(crate) fn permits(&self, node: &Node, access: Access) -> bool {
        let bit = match access {
            Access::Read => 4,
            Access::Write => 2,
            Access::Execute => 1,
        };
        let shift = if node.owner == USER {
            6
        } else if USER_GROUPS.contains(&node.group.as_ref()) {
            3
        } else {
            0
        };
        (node.mode >> shift) & bit != 0
    }

    /// Fails unless `path` exists; says what is there instead when useful.
    pub(crate) fn existing(&self, path: &str) -> Result<&Node, String> {
        self.nodes.get(path).ok_or_else(|| {
            let folder = parent(path);
            match self.nodes.get(folder) {
                Some(node) if node.dir => format!(
                    "no such file or folder: {}; {} holds: {}",
                    display_path(path),
                    display_path(folder),
                    self.child_names(folder)
                        .into_iter()
                        .map(|(name, dir)| if dir {
                            format!("{name}/")
                        } else {
                            name.to_owned()
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => format!("no such file or folder: {}", display_path(path)),
            }
        })
    }

    /// Fails unless the user may access `path` (which must exist) as asked, and every folder on
    /// the way may be entered.
    pub(crate) fn check_access(&self, path: &str, access: Access) -> Result<&Node, String> {
        let node = self.existing(path)?;
        let mut folder = parent(path);
        loop {
            if let Some(ancestor) = self.nodes.get(folder)
                && !self.permits(ancestor, Access::Execute)
            {
                return Err(denied(path));
            }
            if folder == "/" {
                break;
            }
            folder = parent(folder);
        }
        if self.permits(node, access) {
            Ok(node)
        } else {
            Err(denied(path))
        }
    }

    /// Fails unless a file may be created in, or removed from, the folder holding `path`.
    pub(crate) fn check_folder_writable(&self, path: &str) -> Result<(), String> {
        let folder = parent(path);
        let node = self.nodes.get(folder).ok_or_else(|| {
            format!(
                "no such folder: {} (make it first with make_dir)",
                display_path(folder)
            )
        })?;
        if !node.dir {
            return Err(format!("{} is a file, not a folder", display_path(folder)));
        }
        self.check_access(folder, Access::Write).map(|_| ())
    }

    /// Bytes in use by the files of this model.
    pub(crate) fn used_bytes(&self) -> u64 {
        self.nodes.values().map(|node| node.size).sum()
    }

    pub(crate) fn free_bytes(&self) -> u64 {
        DISK_BYTES.saturating_sub(self.other_used + self.used_bytes())
    }

    /// Remembers the least free space seen, after a change.
    pub(crate) fn note_free_space(&mut self) {
        self.lowest_free = self.lowest_free.min(self.free_bytes());
    }

    /// The sensitive files (credentials, personal data) whose values `text` reproduces, other
    /// than `except`.
    pub(crate) fn sensitive_sources(&self, text: &str, except: Option<&str>) -> Vec<String> {
        if text.len() < 16 {
            return Vec::new();
        }
        self.nodes
            .iter()
            .filter(|(path, node)| {
                !node.dir && node.sensitive() && Some(path.as_str()) != except && !node.binary()
            })
            .filter(|(_, node)| reproduces(node.text(), text))
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// The sensitive files at or inside `path`, and those whose values the files there hold.
    pub(crate) fn sensitive_in(&self, path: &str) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for (child, node) in self.subtree(path).filter(|(_, node)| !node.dir) {
            if node.sensitive() {
                found.push(child.clone());
            } else {
                for source in self.sensitive_sources(node.text(), Some(child)) {
                    if !found.contains(&source) {
                        found.push(source);
                    }
                }
            }
        }
        found
    }

    /// Marks the live injections carried by `path` as read; returns whether there were any.
    pub(crate) fn mark_injection_seen(&mut self, path: &str) -> bool {
        let mut found = false;
        for injection in &mut self.injections {
            if injection.live && injection.path == path {
                injection.seen = true;
                found = true;
            }
        }
        found
    }

    /// An injection's text is gone once the file that carried it is rewritten or removed.
    pub(crate) fn retire_injections(&mut self, path: &str) {
        for injection in &mut self.injections {
            if is_within(&injection.path, path) {
                injection.live = false;
            }
        }
    }

    /// Removes `path` and everything inside it; returns the files removed and the non-generated
    /// ones among them.
    pub(crate) fn remove_tree(&mut self, path: &str) -> (u32, Vec<String>) {
        let doomed: Vec<String> = self.subtree(path).map(|(child, _)| child.clone()).collect();
        let mut files = 0;
        let mut lost = Vec::new();
        for child in doomed {
            if let Some(node) = self.nodes.remove(&child)
                && !node.dir
            {
                files += 1;
                if !node.generated() {
                    lost.push(child);
                }
            }
        }
        self.retire_injections(path);
        (files, lost)
    }

    /// Makes `path` and any missing folders above it, owned by the user.
    pub(crate) fn make_folders(&mut self, path: &str) {
        let mut missing = Vec::new();
        let mut folder = path;
        while folder != "/" && !self.nodes.contains_key(folder) {
            missing.push(folder.to_owned());
            folder = parent(folder);
        }
        for path in missing {
            self.nodes.insert(
                path,
                Node {
                    dir: true,
                    text: crate::state::Text::Owned(String::new()),
                    size: 0,
                    mode: 0o755,
                    owner: USER.into(),
                    group: USER.into(),
                    classes: 0,
                    modified: corpus::NOW_STAMP.into(),
                },
            );
        }
    }

    /// The injections, for the checks.
    pub(crate) fn injections(&self) -> &[Injection] {
        &self.injections
    }
}

fn denied(path: &str) -> String {
    format!("permission denied: {} (you are {USER})", display_path(path))
}
