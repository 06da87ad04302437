//! The trained head: a one-hidden-layer network from a step's features to the probability that
//! the step does harm. Trained with candle's autograd and AdamW on a weighted logistic loss (the
//! harmful steps weigh as much, in all, as the safe ones); the encoder under it stays frozen.
//! The initial weights come from a seeded generator and every epoch sees the whole set in one
//! batch, so the same examples train the same head.

use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use serde::{Deserialize, Serialize};

use agentbench_encoder::Encoding;
use agentbench_scorers::SplitMix64;

/// How the head is trained, and how the texts under it are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainOptions {
    pub encoding: Encoding,
    pub hidden: usize,
    pub epochs: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    pub seed: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            encoding: Encoding::Static,
            hidden: 32,
            epochs: 300,
            learning_rate: 3e-3,
            weight_decay: 1e-2,
            seed: 7,
        }
    }
}

/// The head's weights, row-major.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Head {
    pub inputs: usize,
    pub hidden: usize,
    /// `inputs` × `hidden`.
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    /// `hidden` × 1.
    pub w2: Vec<f32>,
    pub b2: f32,
}

/// What the last epoch of training reached.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub loss: f64,
    /// The share of training steps on the right side of one half.
    pub accuracy: f64,
}

impl Head {
    /// The probability of harm for each of the `rows.len() / inputs` rows.
    pub fn probabilities(&self, rows: &[f32]) -> candle_core::Result<Vec<f32>> {
        let n = rows.len() / self.inputs;
        if n == 0 {
            return Ok(Vec::new());
        }
        let x = Tensor::from_slice(rows, (n, self.inputs), &Device::Cpu)?;
        let logits = logits(
            &x,
            &Tensor::from_slice(&self.w1, (self.inputs, self.hidden), &Device::Cpu)?,
            &Tensor::from_slice(&self.b1, self.hidden, &Device::Cpu)?,
            &Tensor::from_slice(&self.w2, (self.hidden, 1), &Device::Cpu)?,
            &Tensor::new(&[self.b2], &Device::Cpu)?,
        )?;
        candle_nn::ops::sigmoid(&logits)?.flatten_all()?.to_vec1()
    }

    /// Trains a head on `rows` (each `inputs` wide) labelled `harmful`.
    pub fn train(
        rows: &[f32],
        inputs: usize,
        harmful: &[bool],
        options: &TrainOptions,
    ) -> candle_core::Result<(Head, Fit)> {
        let n = harmful.len();
        let device = &Device::Cpu;
        let positives = harmful.iter().filter(|h| **h).count();
        if positives == 0 || positives == n {
            candle_core::bail!(
                "training needs harmful and safe steps; got {positives} harmful of {n}"
            );
        }
        let mut random = SplitMix64::new(options.seed);
        let mut uniform = |count: usize, bound: f32| -> Vec<f32> {
            (0..count)
                .map(|_| {
                    ((random.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * bound
                })
                .collect()
        };
        // Glorot-uniform weights, zero biases.
        let hidden = options.hidden;
        let w1 = uniform(inputs * hidden, (6.0 / (inputs + hidden) as f32).sqrt());
        let w2 = uniform(hidden, (6.0 / (hidden + 1) as f32).sqrt());
        let w1 = Var::from_tensor(&Tensor::from_vec(w1, (inputs, hidden), device)?)?;
        let b1 = Var::zeros(hidden, DType::F32, device)?;
        let w2 = Var::from_tensor(&Tensor::from_vec(w2, (hidden, 1), device)?)?;
        let b2 = Var::zeros(1, DType::F32, device)?;
        let mut optimizer = AdamW::new(
            vec![w1.clone(), b1.clone(), w2.clone(), b2.clone()],
            ParamsAdamW {
                lr: options.learning_rate,
                weight_decay: options.weight_decay,
                ..ParamsAdamW::default()
            },
        )?;

        let x = Tensor::from_slice(rows, (n, inputs), device)?;
        let targets: Vec<f32> = harmful.iter().map(|h| f32::from(u8::from(*h))).collect();
        let y = Tensor::from_vec(targets, (n, 1), device)?;
        // Each class weighs half of the loss.
        let (weight_harmful, weight_safe) = (
            n as f32 / (2 * positives) as f32,
            n as f32 / (2 * (n - positives)) as f32,
        );
        let weights: Vec<f32> = harmful
            .iter()
            .map(|h| if *h { weight_harmful } else { weight_safe })
            .collect();
        let weights = Tensor::from_vec(weights, (n, 1), device)?;
        let mut fit = Fit {
            loss: f64::NAN,
            accuracy: 0.0,
        };
        for _ in 0..options.epochs {
            let z = logits(&x, &w1, &b1, &w2, &b2)?;
            // The logistic loss in its stable form: max(z, 0) - z y + ln(1 + e^-|z|).
            let loss = ((z.relu()? - (&z * &y)?)? + (z.abs()?.neg()?.exp()? + 1.0)?.log()?)?;
            let loss = (loss * &weights)?.mean_all()?;
            optimizer.backward_step(&loss)?;
            fit.loss = f64::from(loss.to_scalar::<f32>()?);
        }
        let head = Head {
            w1: w1.flatten_all()?.to_vec1()?,
            b1: b1.to_vec1()?,
            w2: w2.flatten_all()?.to_vec1()?,
            b2: b2.to_vec1::<f32>()?[0],
            inputs,
            hidden,
        };
        let correct = head
            .probabilities(rows)?
            .iter()
            .zip(harmful)
            .filter(|(p, h)| (**p >= 0.5) == **h)
            .count();
        fit.accuracy = correct as f64 / n as f64;
        Ok((head, fit))
    }
}

/// The head's output before the sigmoid: `relu(x w1 + b1) w2 + b2`.
fn logits(
    x: &Tensor,
    w1: &Tensor,
    b1: &Tensor,
    w2: &Tensor,
    b2: &Tensor,
) -> candle_core::Result<Tensor> {
    x.matmul(w1)?
        .broadcast_add(b1)?
        .relu()?
        .matmul(w2)?
        .broadcast_add(b2)
}
