import { widget29 } from "../widgets/widget-29.js";

export function render(root) {
<<<<<<< HEAD
  return widget29(root);
=======
  return widget29(root, true);
>>>>>>> feature
}
