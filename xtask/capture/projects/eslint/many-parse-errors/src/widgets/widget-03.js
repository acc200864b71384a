export function widget03(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
