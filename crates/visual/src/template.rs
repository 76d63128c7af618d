//! Template matching: zero-mean normalized cross-correlation (1 for the
//! same pixels, up to a change of brightness), searched coarse to fine: every
//! place on copies shrunk so the template is a few pixels across, then
//! the promising places again at full size. A 1280x1024 capture is searched
//! in tens of milliseconds where the full search takes seconds.

use uidrive_core::protocol::Bounds;
use uidrive_core::visual::ImageMatch;
use uidrive_core::{Error, Result};

/// A grey picture, one f32 (0 to 255) per pixel, row by row.
#[derive(Debug, Clone)]
pub struct Gray {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<f32>,
}

impl Gray {
    /// Decodes a PNG (any colour type) to grey; `what` names it in errors.
    pub fn decode(png: &[u8], what: &str) -> Result<Gray> {
        let bad = |e: &dyn std::fmt::Display| {
            Error::invalid_request(format!("{what} is not a PNG uidrive can read: {e}"))
                .with_suggestion("give a PNG file (e.g. one `screenshot` wrote)")
        };
        let mut decoder = png::Decoder::new(png);
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().map_err(|e| bad(&e))?;
        let mut buf = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut buf).map_err(|e| bad(&e))?;
        let (width, height) = (frame.width as usize, frame.height as usize);
        let channels = frame.line_size / width.max(1);
        let mut pixels = Vec::with_capacity(width * height);
        for row in 0..height {
            let line = &buf[row * frame.line_size..];
            for x in 0..width {
                let p = &line[x * channels..x * channels + channels];
                let grey = match channels {
                    1 | 2 => f32::from(p[0]),
                    _ => {
                        0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
                    }
                };
                pixels.push(grey);
            }
        }
        Ok(Gray {
            width,
            height,
            pixels,
        })
    }

    fn at(&self, x: usize, y: usize) -> f32 {
        self.pixels[y * self.width + x]
    }

    /// Shrunk `factor` times each way, each pixel the mean of its square.
    fn shrink(&self, factor: usize) -> Gray {
        if factor <= 1 {
            return self.clone();
        }
        let (width, height) = (self.width / factor, self.height / factor);
        let mut pixels = Vec::with_capacity(width * height);
        let area = (factor * factor) as f32;
        for y in 0..height {
            for x in 0..width {
                let mut sum = 0.0;
                for dy in 0..factor {
                    for dx in 0..factor {
                        sum += self.at(x * factor + dx, y * factor + dy);
                    }
                }
                pixels.push(sum / area);
            }
        }
        Gray {
            width,
            height,
            pixels,
        }
    }
}

/// The template's pixels less their mean, and the root of their sum of squares.
struct Prepared {
    centred: Vec<f32>,
    norm: f32,
}

fn prepare(template: &Gray) -> Prepared {
    let mean = template.pixels.iter().sum::<f32>() / template.pixels.len() as f32;
    let centred: Vec<f32> = template.pixels.iter().map(|p| p - mean).collect();
    let norm = centred.iter().map(|c| c * c).sum::<f32>().sqrt();
    Prepared { centred, norm }
}

/// The score of `template` with its top left at (x, y) of `image`.
fn score(image: &Gray, template: &Gray, prepared: &Prepared, x: usize, y: usize) -> f32 {
    let (tw, th) = (template.width, template.height);
    let n = (tw * th) as f32;
    let (mut sum, mut squares, mut cross) = (0.0f32, 0.0f32, 0.0f32);
    for ty in 0..th {
        let row = &image.pixels[(y + ty) * image.width + x..][..tw];
        let trow = &prepared.centred[ty * tw..][..tw];
        for (p, t) in row.iter().zip(trow) {
            sum += p;
            squares += p * p;
            cross += p * t;
        }
    }
    let variance = squares - sum * sum / n;
    if prepared.norm < 1e-3 {
        // A flat template: alike where the place is flat and as bright.
        let mean = template.pixels[0];
        let diff = (sum / n - mean).abs();
        return if variance.max(0.0).sqrt() < 1.0 {
            1.0 - diff / 255.0
        } else {
            0.0
        };
    }
    if variance <= 1e-3 {
        return 0.0;
    }
    cross / (variance.sqrt() * prepared.norm)
}

/// Where `template` shows on `image` with a score of at least `threshold`,
/// best first; of places that overlap, the best only.
pub fn find(image: &Gray, template: &Gray, threshold: f64) -> Vec<ImageMatch> {
    let (tw, th) = (template.width, template.height);
    if tw == 0 || th == 0 || tw > image.width || th > image.height {
        return Vec::new();
    }
    // Shrink so the template's smaller side is about 6 to 12 pixels.
    let factor = (tw.min(th) / 6).clamp(1, 4);
    let small_image = image.shrink(factor);
    let small_template = template.shrink(factor);
    let small_prepared = prepare(&small_template);
    let (cols, rows) = (
        small_image.width - small_template.width + 1,
        small_image.height - small_template.height + 1,
    );
    let mut map = vec![0f32; cols * rows];
    for y in 0..rows {
        for x in 0..cols {
            map[y * cols + x] = score(&small_image, &small_template, &small_prepared, x, y);
        }
    }
    // The coarse map's peaks, best first: shrinking blurs, so no floor but
    // a low one; the full-size pass decides.
    let mut candidates = Vec::new();
    for y in 0..rows {
        for x in 0..cols {
            let s = map[y * cols + x];
            if s < 0.2 {
                continue;
            }
            let peak = (y.saturating_sub(1)..(y + 2).min(rows)).all(|ny| {
                (x.saturating_sub(1)..(x + 2).min(cols)).all(|nx| map[ny * cols + nx] <= s)
            });
            if peak {
                candidates.push((s, x * factor, y * factor));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
    candidates.truncate(64);
    let prepared = prepare(template);
    let mut found: Vec<ImageMatch> = Vec::new();
    for (_, cx, cy) in candidates {
        let reach = factor as isize;
        let mut best: Option<(f32, usize, usize)> = None;
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let (x, y) = (cx as isize + dx, cy as isize + dy);
                if x < 0 || y < 0 || x as usize + tw > image.width || y as usize + th > image.height
                {
                    continue;
                }
                let (x, y) = (x as usize, y as usize);
                let s = score(image, template, &prepared, x, y);
                if best.is_none_or(|(b, _, _)| s > b) {
                    best = Some((s, x, y));
                }
            }
        }
        let Some((s, x, y)) = best else { continue };
        if f64::from(s) < threshold {
            continue;
        }
        let bounds = Bounds::new(x as f64, y as f64, tw as f64, th as f64);
        let overlaps = |b: &Bounds| {
            (b.x - bounds.x).abs() < tw as f64 / 2.0 && (b.y - bounds.y).abs() < th as f64 / 2.0
        };
        match found.iter_mut().find(|m| overlaps(&m.bounds)) {
            Some(m) if f64::from(s) > m.score => {
                m.bounds = bounds;
                m.score = f64::from(s);
            }
            Some(_) => {}
            None => found.push(ImageMatch {
                bounds,
                score: f64::from(s),
            }),
        }
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(width: usize, height: usize, f: impl Fn(usize, usize) -> f32) -> Gray {
        let pixels = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect();
        Gray {
            width,
            height,
            pixels,
        }
    }

    #[test]
    fn a_cut_of_the_image_is_found_where_it_was_cut_and_twice_when_shown_twice() {
        // A pattern that differs everywhere, with one patch drawn twice.
        let patch = |x: usize, y: usize| {
            if (x / 4 + y / 6).is_multiple_of(3) && (4..20).contains(&y) {
                20.0
            } else {
                230.0 - x as f32
            }
        };
        let image = picture(300, 200, |x, y| {
            if (40..80).contains(&x) && (30..54).contains(&y) {
                patch(x - 40, y - 30)
            } else if (200..240).contains(&x) && (150..174).contains(&y) {
                patch(x - 200, y - 150)
            } else {
                ((x / 5 + y / 3) % 2) as f32 * 40.0 + 100.0
            }
        });
        let template = picture(40, 24, patch);
        let found = find(&image, &template, 0.9);
        assert_eq!(found.len(), 2, "{found:?}");
        let mut places: Vec<(f64, f64)> = found.iter().map(|m| (m.bounds.x, m.bounds.y)).collect();
        places.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(places, vec![(40.0, 30.0), (200.0, 150.0)]);
        assert!(found.iter().all(|m| m.score > 0.99), "{found:?}");
        // Nothing like it: nothing found.
        let other = picture(40, 24, |x, y| {
            if (x / 10 + y / 8) % 2 == 0 {
                0.0
            } else {
                255.0
            }
        });
        assert!(find(&image, &other, 0.9).is_empty());
    }
}
