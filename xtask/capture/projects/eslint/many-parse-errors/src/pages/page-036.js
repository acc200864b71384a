import { widget7 } from "../widgets/widget-07.js";

export function render(root) {
<<<<<<< HEAD
  return widget7(root);
=======
  return widget7(root, true);
>>>>>>> feature
}
