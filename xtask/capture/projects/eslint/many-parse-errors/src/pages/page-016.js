import { widget17 } from "../widgets/widget-17.js";

export function render(root) {
<<<<<<< HEAD
  return widget17(root);
=======
  return widget17(root, true);
>>>>>>> feature
}
