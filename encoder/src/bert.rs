//! The BERT encoder of all-MiniLM-L6-v2 (6 layers, 384 wide, 12 heads) on candle's CPU tensors:
//! a batch of token id sequences of any lengths in, one mean-pooled, unit-length vector each out.
//! Shorter sequences in a batch are padded and masked out of attention and of the mean.
//! `embed_at` gives one position's output instead of the mean.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// What `config.json` says of the architecture (the fields this forward pass reads).
#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
    pub hidden_act: String,
}

#[derive(Debug)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// The encoder's weights.
#[derive(Debug)]
pub struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    pub max_positions: usize,
}

impl Bert {
    pub fn load(config: &Config, vb: VarBuilder) -> candle_core::Result<Bert> {
        if config.hidden_act != "gelu" {
            candle_core::bail!(
                "hidden_act `{}` is not supported (gelu is)",
                config.hidden_act
            );
        }
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let embeddings = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|index| {
                let vb = vb.pp(format!("encoder.layer.{index}"));
                let attention = vb.pp("attention");
                Ok(Layer {
                    query: linear(hidden, hidden, attention.pp("self.query"))?,
                    key: linear(hidden, hidden, attention.pp("self.key"))?,
                    value: linear(hidden, hidden, attention.pp("self.value"))?,
                    attention_output: linear(hidden, hidden, attention.pp("output.dense"))?,
                    attention_norm: layer_norm(hidden, eps, attention.pp("output.LayerNorm"))?,
                    intermediate: linear(
                        hidden,
                        config.intermediate_size,
                        vb.pp("intermediate.dense"),
                    )?,
                    output: linear(config.intermediate_size, hidden, vb.pp("output.dense"))?,
                    output_norm: layer_norm(hidden, eps, vb.pp("output.LayerNorm"))?,
                })
            })
            .collect::<candle_core::Result<_>>()?;
        Ok(Bert {
            words: embedding(config.vocab_size, hidden, embeddings.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                hidden,
                embeddings.pp("position_embeddings"),
            )?,
            token_types: embedding(
                config.type_vocab_size,
                hidden,
                embeddings.pp("token_type_embeddings"),
            )?,
            embedding_norm: layer_norm(hidden, eps, embeddings.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
            max_positions: config.max_position_embeddings,
        })
    }

    /// Mean-pooled, L2-normalised sentence vectors, one row per sequence of `batch`. Every
    /// sequence must be non-empty and at most `max_positions` long.
    pub fn embed(&self, batch: &[Vec<u32>]) -> candle_core::Result<Vec<Vec<f32>>> {
        let (x, mask) = self.hidden(batch)?;
        let mask = mask.unsqueeze(2)?;
        let summed = x.broadcast_mul(&mask)?.sum(1)?;
        normalized(&summed.broadcast_div(&mask.sum(1)?)?)
    }

    /// The L2-normalised output at `position` of each sequence of `batch` (all longer than
    /// `position`).
    pub fn embed_at(
        &self,
        batch: &[Vec<u32>],
        position: usize,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        let (x, _) = self.hidden(batch)?;
        normalized(&x.narrow(1, position, 1)?.squeeze(1)?)
    }

    /// The last layer's output for every position of `batch`, padded to the longest sequence,
    /// and the mask that tells real positions (1) from padding (0).
    fn hidden(&self, batch: &[Vec<u32>]) -> candle_core::Result<(Tensor, Tensor)> {
        let device = &Device::Cpu;
        let rows = batch.len();
        let len = batch.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(rows * len);
        let mut mask = Vec::with_capacity(rows * len);
        for sequence in batch {
            ids.extend(sequence.iter().copied());
            ids.extend(std::iter::repeat_n(0, len - sequence.len()));
            mask.extend(std::iter::repeat_n(1f32, sequence.len()));
            mask.extend(std::iter::repeat_n(0f32, len - sequence.len()));
        }
        let ids = Tensor::from_vec(ids, (rows, len), device)?;
        let mask = Tensor::from_vec(mask, (rows, len), device)?;
        let positions = Tensor::arange(0u32, len as u32, device)?;
        let types = Tensor::zeros((1,), DType::U32, device)?;

        let x = self
            .words
            .forward(&ids)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .broadcast_add(&self.token_types.forward(&types)?)?;
        let mut x = self.embedding_norm.forward(&x)?;
        // Padding gets a large negative score, so it takes no share of attention.
        let bias = (mask.affine(1.0, -1.0)? * 1e4)?.reshape((rows, 1, 1, len))?;
        for layer in &self.layers {
            x = self.layer(layer, &x, &bias, rows, len)?;
        }
        Ok((x, mask))
    }

    fn layer(
        &self,
        layer: &Layer,
        x: &Tensor,
        bias: &Tensor,
        rows: usize,
        len: usize,
    ) -> candle_core::Result<Tensor> {
        let hidden = x.dim(2)?;
        let size = hidden / self.heads;
        let flat = x.reshape((rows * len, hidden))?;
        let split = |projection: &Linear| -> candle_core::Result<Tensor> {
            projection
                .forward(&flat)?
                .reshape((rows, len, self.heads, size))?
                .transpose(1, 2)?
                .contiguous()
        };
        let (query, key, value) = (
            split(&layer.query)?,
            split(&layer.key)?,
            split(&layer.value)?,
        );
        let scores = (query.matmul(&key.t()?)? / (size as f64).sqrt())?.broadcast_add(bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = weights
            .matmul(&value)?
            .transpose(1, 2)?
            .reshape((rows * len, hidden))?;
        let attended = layer
            .attention_norm
            .forward(&(layer.attention_output.forward(&context)? + &flat)?)?;
        let widened = layer.intermediate.forward(&attended)?.gelu_erf()?;
        let out = layer
            .output_norm
            .forward(&(layer.output.forward(&widened)? + &attended)?)?;
        out.reshape((rows, len, hidden))
    }
}

/// Each row of `x` (rows × width) scaled to unit length.
fn normalized(x: &Tensor) -> candle_core::Result<Vec<Vec<f32>>> {
    let norm = x.sqr()?.sum_keepdim(1)?.sqrt()?;
    x.broadcast_div(&norm)?.to_vec2()
}
