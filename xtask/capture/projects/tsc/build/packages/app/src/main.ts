import { distance, Point, scale } from "../../core/src/index";

const origin: Point = { x: 0, y: 0, z: 0 };
const d: string = distance(origin, { x: 3, y: 4 });
console.log(d, scale(origin, 2));
