export function greet(name, greeting) {
  let message = `hello ${name}`;
  console.log(message);
  return message;
}
