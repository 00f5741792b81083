//! Charts of a comparison run (plotters): one per operation family, time against size
//! on log scales, CPU and GPU, written as SVG and PNG.

use crate::compare::{Report, OPERATIONS};
use plotters::prelude::*;
use rns::error::{Error, Result};
use std::path::Path;
use std::sync::OnceLock;

/// The label font, DejaVu Sans (free licence: `cli/assets/DejaVuSans.LICENSE`), built
/// in so that charts come out the same on machines without fonts (GPU hosts often).
const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Registers the label font once per process.
fn font() -> Result<()> {
    static DONE: OnceLock<bool> = OnceLock::new();
    if *DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok()
    }) {
        Ok(())
    } else {
        Err(Error::Internal(
            "the built-in chart font failed to load".into(),
        ))
    }
}

/// One colour per operation of a family.
const COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

fn plot_err<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> Error + '_ {
    move |e| Error::io(path.display(), std::io::Error::other(e.to_string()))
}

/// Draws one family's chart on any plotters backend.
fn draw<DB: DrawingBackend>(
    area: DrawingArea<DB, plotters::coord::Shift>,
    report: &Report,
    family: &str,
) -> std::result::Result<(), String> {
    let ops: Vec<&str> = OPERATIONS
        .iter()
        .filter(|(_, f)| *f == family)
        .map(|(o, _)| *o)
        .collect();
    let rows: Vec<_> = report
        .rows
        .iter()
        .filter(|r| ops.contains(&r.operation))
        .collect();
    let (xmin, xmax) = rows.iter().fold((f64::MAX, 0f64), |(a, b), r| {
        (a.min(r.size as f64), b.max(r.size as f64))
    });
    let (ymin, ymax) = rows
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), r| (a.min(r.ms), b.max(r.ms)));
    area.fill(&WHITE).map_err(|e| e.to_string())?;
    let unit = if family == "linear_algebra" {
        "matrix dimension n"
    } else {
        "numbers"
    };
    let device = if report.device == "none" {
        "CPU only".to_string()
    } else {
        report.device.clone()
    };
    let mut chart = ChartBuilder::on(&area)
        .caption(
            format!(
                "{family}: time against size ({device}; {} CPU threads)",
                report.threads
            ),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (xmin / 1.5..xmax * 1.5).log_scale(),
            (ymin / 2.0..ymax * 2.0).log_scale(),
        )
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(unit)
        .y_desc("milliseconds")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| e.to_string())?;
    for (k, op) in ops.iter().enumerate() {
        for backend in ["cpu1", "cpu", "gpu_kernel", "gpu_resident", "gpu"] {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.operation == *op && r.backend == backend)
                .map(|r| (r.size as f64, r.ms))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let c = COLOURS[k % COLOURS.len()];
            let width = if backend == "cpu1" { 1 } else { 2 };
            let style = ShapeStyle::from(&c).stroke_width(width);
            chart
                .draw_series(LineSeries::new(pts.clone(), style))
                .map_err(|e| e.to_string())?
                .label(format!("{op} {backend}"))
                .legend(move |(x, y)| {
                    let line =
                        EmptyElement::at((x, y)) + PathElement::new(vec![(0, 0), (18, 0)], style);
                    match backend {
                        "cpu1" => line + Circle::new((9, 0), 4, style).into_dyn(),
                        "cpu" => line + Circle::new((9, 0), 4, c.filled()).into_dyn(),
                        "gpu_kernel" => {
                            line + TriangleMarker::new((9, 0), 5, c.filled()).into_dyn()
                        }
                        "gpu_resident" => line + TriangleMarker::new((9, 0), 5, style).into_dyn(),
                        _ => line + Cross::new((9, 0), 5, style).into_dyn(),
                    }
                });
            // Marker by backend: ○ one core, ● all cores, ▲ GPU kernels, △ GPU resident,
            // ✕ GPU end to end.
            match backend {
                "cpu1" => chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, style))),
                "cpu" => chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled()))),
                "gpu_kernel" => {
                    chart.draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 5, c.filled())))
                }
                "gpu_resident" => {
                    chart.draw_series(pts.iter().map(|&p| TriangleMarker::new(p, 5, style)))
                }
                _ => chart.draw_series(pts.iter().map(|&p| Cross::new(p, 5, style))),
            }
            .map_err(|e| e.to_string())?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(|e| e.to_string())?;
    area.present().map_err(|e| e.to_string())
}

/// Writes `DIR/<family>.svg` and `DIR/<family>.png` for every family that has rows;
/// returns the paths written.
pub fn families(report: &Report, dir: &Path) -> Result<Vec<String>> {
    font()?;
    std::fs::create_dir_all(dir).map_err(plot_err(dir))?;
    let mut families: Vec<&str> = OPERATIONS.iter().map(|(_, f)| *f).collect();
    families.dedup();
    let mut written = Vec::new();
    for family in families {
        if !report.rows.iter().any(|r| {
            OPERATIONS
                .iter()
                .any(|(o, f)| *f == family && *o == r.operation)
        }) {
            continue;
        }
        let svg = dir.join(format!("{family}.svg"));
        draw(
            SVGBackend::new(&svg, (900, 600)).into_drawing_area(),
            report,
            family,
        )
        .map_err(plot_err(&svg))?;
        let png = dir.join(format!("{family}.png"));
        draw(
            BitMapBackend::new(&png, (900, 600)).into_drawing_area(),
            report,
            family,
        )
        .map_err(plot_err(&png))?;
        written.push(svg.display().to_string());
        written.push(png.display().to_string());
    }
    Ok(written)
}
