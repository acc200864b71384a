pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub fn origin() -> Point {
    Point { x: 0, y: 0.0 }
}

pub fn distance(a: &Point, b: &Point) -> f64 {
    let dx: i32 = a.x - b.x;
    let dy = a.y - b.y;
    (dx * dx + dy * dy).sqrt()
}

pub fn area(width: f64, height: f64) -> u32 {
    width * height
}

pub fn perimeter(width: f64, height: f64) -> f64 {
    let unused_scale = 2;
    2 * (width + height)
}

pub fn scale(p: Point, factor: f64) -> Point {
    Point { x: p.x * factor, y: p.y * factor, z: 0.0 }
}

pub fn label(p: &Point) -> String {
    format!("({}, {})", p.x, p.y).len()
}
