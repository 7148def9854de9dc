/**
 * The regulatory reference data the emulator ships: a small, real slice of the NCM (Nomenclatura Comum do
 * Mercosul, as used in Brazil's TIPI) and a small dictionary of product attributes with the attributes each
 * NCM requires. Plain readonly data; src/core/regulatory/snapshot.ts turns it into the initial reference
 * snapshot and publishes changed ones.
 *
 * Codes: every code below is a real 8-digit NCM subitem. Most were checked against the NCM in force in 2025
 * (Resolução Gecex 272/2021 and its later amendments); the descriptions are condensed from the TIPI's
 * hierarchical text ("Outros" under "Calçados para esporte" becomes "Outros calçados para esporte, ...").
 *
 * Extinct codes (`extinta: true`), all really extinguished in an NCM revision:
 *   - 0207.12.00 and 0207.14.00 (chicken, frozen): split into 0207.12.10/20 on 2023-04-01 and into
 *     0207.14.11–0207.14.39 on 2024-08-01.
 *   - 3923.90.00 (other plastic packing articles) and 9403.20.00 (other metal furniture): split into
 *     3923.90.10/90 and 9403.20.10/90 on 2022-09-01.
 *   - 8517.12.31 (portable cell phones), 8541.40.32 (solar cells in modules or panels), 9405.40.90 (other
 *     electric lighting fittings) and 9701.10.00 (paintings and drawings): subheadings deleted by the HS 2022
 *     amendment, in force in the NCM from 2022-04-01 (successors 8517.13/8517.14, 8541.43, 9405.41–9405.49,
 *     9701.21/9701.91).
 *
 * Required attributes (`obrigatorios`), assigned by this rule (heading first, else chapter, else none):
 *   02 meat ............................. conservação, inspeção sanitária, espécie animal
 *   03 fish ............................. conservação, inspeção sanitária
 *   04 dairy ............................ inspeção sanitária, espécie animal, conteúdo líquido
 *      04.07 eggs, 04.09 honey .......... inspeção sanitária, tipo de embalagem
 *   07, 08, 10 vegetables, fruit, cereals  tipo de embalagem, conteúdo líquido
 *   09 spices and tea ................... forma de apresentação, conteúdo líquido, marca
 *      09.01 coffee ..................... tipo de torra, forma de apresentação, conteúdo líquido
 *   19, 20, 21 food preparations ........ marca, tipo de embalagem, conteúdo líquido
 *   22 beverages ........................ tipo de embalagem, conteúdo líquido
 *      22.03–22.08 alcoholic beverages .. teor alcoólico, tipo de embalagem, conteúdo líquido
 *   30 pharmaceutical products .......... registro ANVISA, marca
 *      30.04 medicines .................. registro ANVISA, forma farmacêutica, marca
 *      30.06 medical preparations ....... registro ANVISA, classe de risco
 *   33 cosmetics ........................ registro ANVISA, grau de risco sanitário, conteúdo líquido
 *   34 soaps and cleaning ............... marca, conteúdo líquido
 *   39 plastics ......................... material predominante
 *   61, 62 apparel ...................... composição têxtil, tamanho, gênero
 *   64 footwear ......................... numeração, material predominante, gênero
 *   82, 83 tools and metal goods ........ material predominante, marca
 *   84 machines ......................... marca, modelo
 *      84.14, 84.15, 84.18, 84.22, 84.50, 84.51, 84.71  voltagem, marca, modelo
 *   85 electrical ....................... marca, modelo
 *      85.08, 85.09, 85.10, 85.16, 85.28  voltagem, marca, modelo
 *      85.17 telephones and network ..... homologação ANATEL, marca, modelo
 *      85.39 lamps ...................... potência, voltagem
 *   87 vehicles
 *      87.03, 87.11 cars, motorcycles ... marca, modelo, cilindrada
 *      87.08 parts ...................... número de peça, aplicação veicular
 *      87.12, 87.15 bicycles, strollers . certificação INMETRO, marca
 *   94 furniture
 *      94.01, 94.03 seats, furniture .... material predominante, cor
 *      94.04 mattresses, bedding ........ material predominante
 *      94.05 lighting ................... fonte de luz, voltagem
 *   anything else ....................... none
 */

export interface AttributeDefinition {
  /** `ATT_` and digits. */
  readonly codigo: string;
  readonly nome: string;
  /** The allowed values; absent for free text. */
  readonly dominio?: readonly string[];
}

export interface NcmEntry {
  /** 8 digits, no dots. */
  readonly codigo: string;
  readonly descricao: string;
  readonly extinta: boolean;
  /** ISO date (YYYY-MM-DD) the code stopped being valid, or null while it is valid. */
  readonly extintaDesde: string | null;
  /** Attribute codes a product with this NCM must carry. */
  readonly obrigatorios: readonly string[];
}

export const ATTRIBUTES: readonly AttributeDefinition[] = [
  {
    codigo: 'ATT_0001',
    nome: 'tipo de embalagem',
    dominio: ['caixa', 'garrafa', 'lata', 'saco', 'pote', 'frasco', 'bandeja', 'a granel'],
  },
  { codigo: 'ATT_0002', nome: 'conteúdo líquido' },
  { codigo: 'ATT_0003', nome: 'marca' },
  { codigo: 'ATT_0004', nome: 'modelo' },
  { codigo: 'ATT_0005', nome: 'voltagem', dominio: ['110V', '220V', 'bivolt'] },
  {
    codigo: 'ATT_0006',
    nome: 'material predominante',
    dominio: [
      'algodão',
      'poliéster',
      'couro',
      'couro sintético',
      'borracha',
      'plástico',
      'metal',
      'aço inoxidável',
      'madeira',
      'vidro',
      'tecido',
      'espuma',
    ],
  },
  { codigo: 'ATT_0007', nome: 'tamanho', dominio: ['PP', 'P', 'M', 'G', 'GG', 'XG', 'único'] },
  { codigo: 'ATT_0008', nome: 'composição têxtil' },
  { codigo: 'ATT_0009', nome: 'gênero', dominio: ['masculino', 'feminino', 'unissex', 'infantil'] },
  { codigo: 'ATT_0010', nome: 'teor alcoólico' },
  { codigo: 'ATT_0011', nome: 'registro ANVISA' },
  {
    codigo: 'ATT_0012',
    nome: 'forma farmacêutica',
    dominio: ['comprimido', 'cápsula', 'solução', 'suspensão', 'xarope', 'pomada', 'creme', 'gel', 'injetável', 'pó'],
  },
  {
    codigo: 'ATT_0013',
    nome: 'estado de conservação',
    dominio: ['fresco', 'refrigerado', 'congelado', 'seco', 'salgado'],
  },
  { codigo: 'ATT_0014', nome: 'registro no serviço de inspeção (SIF/SIE/SIM)' },
  { codigo: 'ATT_0015', nome: 'prazo de validade' },
  { codigo: 'ATT_0016', nome: 'potência' },
  { codigo: 'ATT_0017', nome: 'classe de eficiência energética', dominio: ['A', 'B', 'C', 'D', 'E'] },
  { codigo: 'ATT_0018', nome: 'homologação ANATEL' },
  { codigo: 'ATT_0019', nome: 'certificação INMETRO' },
  { codigo: 'ATT_0020', nome: 'numeração do calçado' },
  { codigo: 'ATT_0021', nome: 'cor' },
  {
    codigo: 'ATT_0022',
    nome: 'espécie animal de origem',
    dominio: ['bovina', 'bubalina', 'caprina', 'ovina', 'suína', 'aves', 'outras'],
  },
  { codigo: 'ATT_0023', nome: 'teor de gordura' },
  { codigo: 'ATT_0024', nome: 'tipo de torra', dominio: ['não torrado', 'clara', 'média', 'escura'] },
  {
    codigo: 'ATT_0025',
    nome: 'forma de apresentação',
    dominio: ['grão', 'moído', 'solúvel', 'folhas', 'sachê', 'cápsula', 'pó'],
  },
  { codigo: 'ATT_0026', nome: 'capacidade' },
  { codigo: 'ATT_0027', nome: 'capacidade de armazenamento' },
  { codigo: 'ATT_0028', nome: 'número de peça do fabricante' },
  { codigo: 'ATT_0029', nome: 'aplicação veicular' },
  { codigo: 'ATT_0030', nome: 'fonte de luz', dominio: ['LED', 'fluorescente', 'incandescente', 'halógena'] },
  { codigo: 'ATT_0031', nome: 'grau de risco sanitário', dominio: ['grau 1', 'grau 2'] },
  { codigo: 'ATT_0032', nome: 'classe de risco de dispositivo médico', dominio: ['I', 'II', 'III', 'IV'] },
  { codigo: 'ATT_0033', nome: 'cilindrada' },
];

const EMBALAGEM = 'ATT_0001';
const CONTEUDO = 'ATT_0002';
const MARCA = 'ATT_0003';
const MODELO = 'ATT_0004';
const VOLTAGEM = 'ATT_0005';
const MATERIAL = 'ATT_0006';
const TAMANHO = 'ATT_0007';
const COMPOSICAO = 'ATT_0008';
const GENERO = 'ATT_0009';
const TEOR_ALCOOLICO = 'ATT_0010';
const ANVISA = 'ATT_0011';
const FORMA_FARMACEUTICA = 'ATT_0012';
const CONSERVACAO = 'ATT_0013';
const INSPECAO = 'ATT_0014';
const POTENCIA = 'ATT_0016';
const ANATEL = 'ATT_0018';
const INMETRO = 'ATT_0019';
const NUMERACAO = 'ATT_0020';
const COR = 'ATT_0021';
const ESPECIE = 'ATT_0022';
const TORRA = 'ATT_0024';
const APRESENTACAO = 'ATT_0025';
const NUMERO_PECA = 'ATT_0028';
const APLICACAO = 'ATT_0029';
const FONTE_LUZ = 'ATT_0030';
const GRAU_RISCO = 'ATT_0031';
const CLASSE_RISCO = 'ATT_0032';
const CILINDRADA = 'ATT_0033';

const APPLIANCE = [VOLTAGEM, MARCA, MODELO];
const FOOD = [MARCA, EMBALAGEM, CONTEUDO];
const PRODUCE = [EMBALAGEM, CONTEUDO];
const APPAREL = [COMPOSICAO, TAMANHO, GENERO];

/** The rule in the header comment, heading (4 digits) first. */
const BY_HEADING: Readonly<Record<string, readonly string[]>> = {
  '0407': [INSPECAO, EMBALAGEM],
  '0409': [INSPECAO, EMBALAGEM],
  '0901': [TORRA, APRESENTACAO, CONTEUDO],
  '2203': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '2204': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '2205': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '2206': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '2207': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '2208': [TEOR_ALCOOLICO, EMBALAGEM, CONTEUDO],
  '3004': [ANVISA, FORMA_FARMACEUTICA, MARCA],
  '3006': [ANVISA, CLASSE_RISCO],
  '8414': APPLIANCE,
  '8415': APPLIANCE,
  '8418': APPLIANCE,
  '8422': APPLIANCE,
  '8450': APPLIANCE,
  '8451': APPLIANCE,
  '8471': APPLIANCE,
  '8508': APPLIANCE,
  '8509': APPLIANCE,
  '8510': APPLIANCE,
  '8516': APPLIANCE,
  '8528': APPLIANCE,
  '8517': [ANATEL, MARCA, MODELO],
  '8539': [POTENCIA, VOLTAGEM],
  '8703': [MARCA, MODELO, CILINDRADA],
  '8711': [MARCA, MODELO, CILINDRADA],
  '8708': [NUMERO_PECA, APLICACAO],
  '8712': [INMETRO, MARCA],
  '8715': [INMETRO, MARCA],
  '9401': [MATERIAL, COR],
  '9403': [MATERIAL, COR],
  '9404': [MATERIAL],
  '9405': [FONTE_LUZ, VOLTAGEM],
};

/** …else by chapter (2 digits). */
const BY_CHAPTER: Readonly<Record<string, readonly string[]>> = {
  '02': [CONSERVACAO, INSPECAO, ESPECIE],
  '03': [CONSERVACAO, INSPECAO],
  '04': [INSPECAO, ESPECIE, CONTEUDO],
  '07': PRODUCE,
  '08': PRODUCE,
  '10': PRODUCE,
  '09': [APRESENTACAO, CONTEUDO, MARCA],
  '19': FOOD,
  '20': FOOD,
  '21': FOOD,
  '22': [EMBALAGEM, CONTEUDO],
  '30': [ANVISA, MARCA],
  '33': [ANVISA, GRAU_RISCO, CONTEUDO],
  '34': [MARCA, CONTEUDO],
  '39': [MATERIAL],
  '61': APPAREL,
  '62': APPAREL,
  '64': [NUMERACAO, MATERIAL, GENERO],
  '82': [MATERIAL, MARCA],
  '83': [MATERIAL, MARCA],
  '84': [MARCA, MODELO],
  '85': [MARCA, MODELO],
};

/** The attributes the shipped table requires for `codigo` (the rule in the header comment). */
export function requiredAttributesFor(codigo: string): readonly string[] {
  return BY_HEADING[codigo.slice(0, 4)] ?? BY_CHAPTER[codigo.slice(0, 2)] ?? [];
}

/** [code, description] or [code, description, date the code was extinguished]. */
type Row = readonly [codigo: string, descricao: string, extintaDesde?: string];

const ROWS: readonly Row[] = [
  // 02 — Carnes e miudezas, comestíveis
  ['02011000', 'Carcaças e meias-carcaças de bovinos, frescas ou refrigeradas'],
  ['02012010', 'Quartos dianteiros de bovinos, não desossados, frescos ou refrigerados'],
  ['02012020', 'Quartos traseiros de bovinos, não desossados, frescos ou refrigerados'],
  ['02012090', 'Outras peças não desossadas de bovinos, frescas ou refrigeradas'],
  ['02013000', 'Carnes bovinas desossadas, frescas ou refrigeradas'],
  ['02021000', 'Carcaças e meias-carcaças de bovinos, congeladas'],
  ['02022090', 'Outras peças não desossadas de bovinos, congeladas'],
  ['02023000', 'Carnes bovinas desossadas, congeladas'],
  ['02031100', 'Carcaças e meias-carcaças de suínos, frescas ou refrigeradas'],
  ['02031900', 'Outras carnes de suínos, frescas ou refrigeradas'],
  ['02032100', 'Carcaças e meias-carcaças de suínos, congeladas'],
  ['02032900', 'Outras carnes de suínos, congeladas'],
  ['02044300', 'Carnes de ovinos desossadas, congeladas'],
  ['02061000', 'Miudezas comestíveis de bovinos, frescas ou refrigeradas'],
  ['02062200', 'Fígados de bovinos, congelados'],
  ['02071100', 'Carnes de galos e galinhas, não cortadas em pedaços, frescas ou refrigeradas'],
  ['02071200', 'Carnes de galos e galinhas, não cortadas em pedaços, congeladas', '2023-04-01'],
  ['02071210', 'Carnes de galos e galinhas, não cortadas em pedaços, congeladas, com miudezas'],
  ['02071220', 'Carnes de galos e galinhas, não cortadas em pedaços, congeladas, sem miudezas'],
  ['02071300', 'Pedaços e miudezas de galos e galinhas, frescos ou refrigerados'],
  ['02071400', 'Pedaços e miudezas de galos e galinhas, congelados', '2024-08-01'],
  ['02071411', 'Peitos de galos e galinhas, não desossados, congelados'],
  ['02071412', 'Coxas com sobrecoxas de galos e galinhas, não desossadas, congeladas'],
  ['02071422', 'Peitos de galos e galinhas, desossados, congelados'],
  ['02071431', 'Fígados de galos e galinhas, congelados'],
  ['02072700', 'Pedaços e miudezas de perus, congelados'],

  // 03 — Peixes e crustáceos, moluscos e outros invertebrados aquáticos
  ['03028932', 'Tilápias, frescas ou refrigeradas'],
  ['03031300', 'Salmão-do-atlântico, congelado'],
  ['03032300', 'Tilápias (Oreochromis spp.), congeladas'],
  ['03056200', 'Bacalhau salgado, não seco, ou em salmoura'],
  ['03061710', 'Camarões inteiros, congelados'],
  ['03074310', 'Lulas congeladas'],

  // 04 — Leite e laticínios; ovos de aves; mel natural
  ['04011010', 'Leite UHT com teor de gordura não superior a 1%'],
  ['04011090', 'Outros leites com teor de gordura não superior a 1%, não concentrados'],
  ['04012010', 'Leite UHT com teor de gordura superior a 1% e não superior a 6%'],
  ['04012090', 'Outros leites com teor de gordura superior a 1% e não superior a 6%'],
  ['04015021', 'Creme de leite UHT com teor de gordura superior a 10%'],
  ['04021010', 'Leite em pó com até 1,5% de gordura e arsênio, chumbo ou cobre abaixo de 5 ppm'],
  ['04022110', 'Leite integral em pó, sem adição de açúcar'],
  ['04022120', 'Leite parcialmente desnatado em pó, sem adição de açúcar'],
  ['04022910', 'Leite integral em pó, adicionado de açúcar ou edulcorantes'],
  ['04029100', 'Leite concentrado, não em pó, sem adição de açúcar'],
  ['04029900', 'Leite condensado e outros leites concentrados adicionados de açúcar'],
  ['04032000', 'Iogurte'],
  ['04039000', 'Leitelho, quefir e outros leites fermentados ou acidificados'],
  ['04041000', 'Soro de leite, mesmo concentrado ou adicionado de açúcar'],
  ['04051000', 'Manteiga'],
  ['04061010', 'Mozarela'],
  ['04061090', 'Outros queijos frescos e requeijão'],
  ['04062000', 'Queijos ralados ou em pó'],
  ['04063000', 'Queijos fundidos, exceto ralados ou em pó'],
  ['04064000', 'Queijos de pasta mofada (azul)'],
  ['04069010', 'Queijos de massa dura (umidade inferior a 36%)'],
  ['04069020', 'Queijos de massa semidura (umidade de 36% a 46%)'],
  ['04072100', 'Ovos frescos de galinha, com casca'],
  ['04090000', 'Mel natural'],

  // 07, 08 — Produtos hortícolas, raízes e tubérculos; fruta
  ['07129020', 'Alho seco'],
  ['07132090', 'Grão-de-bico seco, exceto para semeadura'],
  ['07133319', 'Feijão comum preto, seco, exceto para semeadura'],
  ['07133399', 'Outros feijões comuns secos (carioca e outros), exceto para semeadura'],
  ['07134090', 'Lentilhas secas, exceto para semeadura'],
  ['07141000', 'Raízes de mandioca'],
  ['08013200', 'Castanha-de-caju sem casca'],
  ['08111000', 'Morangos congelados'],

  // 09 — Café, chá, mate e especiarias
  ['09011110', 'Café não torrado, não descafeinado, em grão'],
  ['09011200', 'Café não torrado, descafeinado'],
  ['09012100', 'Café torrado, não descafeinado'],
  ['09012200', 'Café torrado, descafeinado'],
  ['09019000', 'Cascas e películas de café; sucedâneos que contenham café'],
  ['09021000', 'Chá verde em embalagens de até 3 kg'],
  ['09023000', 'Chá preto em embalagens de até 3 kg'],
  ['09030010', 'Mate simplesmente cancheado'],
  ['09030090', 'Outros mates (erva-mate beneficiada)'],
  ['09041100', 'Pimenta do gênero Piper, não triturada nem em pó'],
  ['09041200', 'Pimenta do gênero Piper, triturada ou em pó'],
  ['09062000', 'Canela triturada ou em pó'],
  ['09103000', 'Cúrcuma'],
  ['09109900', 'Outras especiarias'],

  // 10 — Cereais
  ['10019900', 'Trigo, exceto duro e para semeadura'],
  ['10049000', 'Aveia, exceto para semeadura'],
  ['10059010', 'Milho em grão, exceto para semeadura'],
  ['10063011', 'Arroz parboilizado, polido ou brunido'],
  ['10063019', 'Outros arrozes parboilizados, semibranqueados ou branqueados'],
  ['10063021', 'Arroz não parboilizado, polido ou brunido'],
  ['10063029', 'Outros arrozes não parboilizados, semibranqueados ou branqueados'],
  ['10064000', 'Arroz quebrado (trinca de arroz)'],

  // 19 — Preparações à base de cereais, farinhas, amidos ou leite; produtos de pastelaria
  ['19011010', 'Leite modificado para alimentação de lactentes'],
  ['19011090', 'Outras preparações para alimentação de lactentes'],
  ['19012000', 'Misturas e pastas para preparação de produtos de padaria e pastelaria'],
  ['19019010', 'Extrato de malte'],
  ['19019020', 'Doce de leite'],
  ['19019090', 'Outras preparações alimentícias de farinhas, amidos ou leite'],
  ['19021100', 'Massas alimentícias não cozidas nem recheadas, que contenham ovos'],
  ['19021900', 'Outras massas alimentícias não cozidas nem recheadas'],
  ['19022000', 'Massas alimentícias recheadas'],
  ['19023000', 'Outras massas alimentícias (cozidas ou preparadas)'],
  ['19024000', 'Cuscuz'],
  ['19041000', 'Produtos à base de cereais obtidos por expansão ou torrefação'],
  ['19051000', 'Pão crocante (knäckebrot)'],
  ['19053100', 'Bolachas e biscoitos adicionados de edulcorante'],
  ['19053200', 'Waffles e wafers'],
  ['19054000', 'Torradas, pão torrado e produtos semelhantes torrados'],
  ['19059010', 'Pão de forma'],
  ['19059020', 'Bolachas não adicionadas de edulcorante'],
  ['19059090', 'Outros produtos de padaria, pastelaria e da indústria de bolachas'],

  // 20 — Preparações de produtos hortícolas e de fruta
  ['20091200', 'Suco de laranja não congelado, com valor Brix até 20'],
  ['20094100', 'Suco de abacaxi com valor Brix até 20'],
  ['20096100', 'Suco de uva com valor Brix até 30'],
  ['20098912', 'Suco de acerola'],
  ['20098921', 'Água de coco com valor Brix até 7,4'],
  ['20099000', 'Misturas de sucos de fruta ou de produtos hortícolas'],

  // 21 — Preparações alimentícias diversas
  ['21011110', 'Café solúvel, mesmo descafeinado'],
  ['21011200', 'Preparações à base de extratos de café ou à base de café'],
  ['21012010', 'Extratos e preparações à base de chá'],
  ['21012020', 'Extratos e preparações à base de mate'],
  ['21023000', 'Pós para levedar, preparados (fermento em pó)'],
  ['21031010', 'Molho de soja em embalagens de até 1 kg'],
  ['21032010', 'Ketchup e outros molhos de tomate em embalagens de até 1 kg'],
  ['21039011', 'Maionese em embalagens de até 1 kg'],
  ['21039021', 'Condimentos e temperos compostos em embalagens de até 1 kg'],
  ['21041011', 'Preparações para caldos e sopas em embalagens de até 1 kg'],
  ['21050010', 'Sorvetes em embalagens de até 2 kg'],
  ['21061000', 'Concentrados de proteínas e substâncias proteicas texturizadas'],
  ['21069010', 'Preparações do tipo utilizado para elaboração de bebidas'],
  ['21069030', 'Suplementos alimentares'],
  ['21069050', 'Gomas de mascar sem açúcar'],
  ['21069090', 'Outras preparações alimentícias'],

  // 22 — Bebidas, líquidos alcoólicos e vinagres
  ['22011000', 'Águas minerais e águas gaseificadas'],
  ['22021000', 'Águas adicionadas de açúcar ou aromatizadas (refrigerantes)'],
  ['22029100', 'Cerveja sem álcool'],
  ['22029900', 'Outras bebidas não alcoólicas'],
  ['22030000', 'Cervejas de malte'],
  ['22041010', 'Vinhos espumantes tipo champanha'],
  ['22041090', 'Outros vinhos espumantes e espumosos'],
  ['22042100', 'Vinhos em recipientes de até 2 l'],
  ['22042211', 'Vinhos em recipientes de mais de 2 l e até 5 l'],
  ['22051000', 'Vermutes em recipientes de até 2 l'],
  ['22060010', 'Sidra'],
  ['22082000', 'Aguardentes de vinho ou de bagaço de uvas'],
  ['22084000', 'Rum e outras aguardentes de cana-de-açúcar (cachaça)'],
  ['22085000', 'Gim e genebra'],
  ['22086000', 'Vodca'],
  ['22087000', 'Licores'],
  ['22089000', 'Outras bebidas espirituosas'],
  ['22090000', 'Vinagres e seus sucedâneos'],

  // 30 — Produtos farmacêuticos
  ['30049099', 'Outros medicamentos em doses ou acondicionados para venda a retalho'],
  ['30061090', 'Outros materiais estéreis para suturas e hemostáticos'],
  ['30063011', 'Preparações opacificantes para exames radiográficos à base de ioexol'],
  ['30064011', 'Cimentos para obturação dentária'],
  ['30065000', 'Estojos e caixas de primeiros socorros, guarnecidos'],
  ['30066000', 'Preparações químicas contraceptivas à base de hormônios ou espermicidas'],
  ['30067000', 'Géis lubrificantes para uso em medicina humana ou veterinária'],
  ['30069110', 'Bolsas para colostomia, ileostomia e urostomia'],
  ['30069200', 'Resíduos farmacêuticos'],
  ['30069300', 'Placebos e estojos para ensaios clínicos cegos'],

  // 33 — Óleos essenciais; produtos de perfumaria ou de toucador e preparações cosméticas
  ['33030010', 'Perfumes (extratos)'],
  ['33030020', 'Águas-de-colônia'],
  ['33041000', 'Produtos de maquiagem para os lábios'],
  ['33042010', 'Sombra, delineador, lápis para sobrancelhas e rímel'],
  ['33042090', 'Outros produtos de maquiagem para os olhos'],
  ['33043000', 'Preparações para manicuros e pedicuros'],
  ['33049100', 'Pós de maquiagem, incluindo os compactos'],
  ['33049910', 'Cremes de beleza e cremes nutritivos; loções tônicas'],
  ['33049990', 'Outros produtos de beleza e de cuidados da pele (incluindo antissolares)'],
  ['33051000', 'Xampus'],
  ['33052000', 'Preparações para ondulação ou alisamento permanentes'],
  ['33053000', 'Laquês para o cabelo'],
  ['33059000', 'Outras preparações capilares (condicionadores, tinturas)'],
  ['33061000', 'Dentifrícios (pastas de dente)'],
  ['33062000', 'Fios dentais'],
  ['33069000', 'Outras preparações para higiene bucal (enxaguatórios)'],
  ['33071000', 'Preparações para barbear'],
  ['33072010', 'Desodorantes corporais e antiperspirantes, líquidos'],
  ['33072090', 'Outros desodorantes corporais e antiperspirantes'],
  ['33073000', 'Sais perfumados e outras preparações para banhos'],
  ['33074900', 'Outras preparações para perfumar ou desodorizar ambientes'],
  ['33079000', 'Outros produtos de perfumaria ou de toucador (depilatórios e outros)'],

  // 34 — Sabões, preparações para lavagem, velas
  ['34011190', 'Sabões de toucador em barras, pedaços ou figuras moldadas'],
  ['34012010', 'Sabões de toucador sob outras formas'],
  ['34013000', 'Produtos tensoativos líquidos ou em creme para lavagem da pele (sabonete líquido)'],
  ['34025000', 'Preparações para lavagem e limpeza acondicionadas para venda a retalho'],
  ['34060000', 'Velas, pavios, círios e artigos semelhantes'],

  // 39 — Plástico e suas obras
  ['39221000', 'Banheiras, boxes para chuveiros, pias e lavatórios, de plástico'],
  ['39222000', 'Assentos e tampas de sanitários, de plástico'],
  ['39231090', 'Caixas, caixotes, engradados e artigos semelhantes, de plástico'],
  ['39232110', 'Sacos de polímeros de etileno de capacidade até 1.000 cm³'],
  ['39232190', 'Outros sacos e bolsas de polímeros de etileno'],
  ['39233090', 'Garrafões, garrafas, frascos e artigos semelhantes, de plástico'],
  ['39235000', 'Rolhas, tampas, cápsulas e outros dispositivos para fechar recipientes, de plástico'],
  ['39239000', 'Outros artigos de transporte ou de embalagem, de plástico', '2022-09-01'],
  ['39239010', 'Paletes, paletes-caixas e outros estrados para carga, de plástico'],
  ['39239090', 'Outros artigos de transporte ou de embalagem, de plástico'],
  ['39241000', 'Serviços de mesa e utensílios de mesa ou de cozinha, de plástico'],
  ['39249000', 'Outros artigos de uso doméstico e de higiene ou toucador, de plástico'],
  ['39252000', 'Portas, janelas e seus caixilhos, de plástico'],
  ['39261000', 'Artigos de escritório e artigos escolares, de plástico'],
  ['39264000', 'Estatuetas e outros objetos de ornamentação, de plástico'],
  ['39269090', 'Outras obras de plástico'],

  // 61 — Vestuário e seus acessórios, de malha
  ['61034200', 'Calças, bermudas e shorts de malha de algodão, masculinos'],
  ['61044200', 'Vestidos de malha de algodão'],
  ['61044300', 'Vestidos de malha de fibras sintéticas'],
  ['61046200', 'Calças, bermudas e shorts de malha de algodão, femininos'],
  ['61046300', 'Calças, bermudas e shorts de malha de fibras sintéticas, femininos'],
  ['61051000', 'Camisas de malha de algodão, masculinas'],
  ['61052000', 'Camisas de malha de fibras sintéticas ou artificiais, masculinas'],
  ['61061000', 'Camisas e blusas de malha de algodão, femininas'],
  ['61062000', 'Camisas e blusas de malha de fibras sintéticas ou artificiais, femininas'],
  ['61071100', 'Cuecas de malha de algodão'],
  ['61082100', 'Calcinhas de malha de algodão'],
  ['61091000', 'Camisetas (T-shirts) de malha de algodão'],
  ['61099000', 'Camisetas (T-shirts) de malha de outras matérias têxteis'],
  ['61102000', 'Suéteres, pulôveres e cardigãs de malha de algodão'],
  ['61103000', 'Suéteres, pulôveres e cardigãs de malha de fibras sintéticas ou artificiais'],
  ['61112000', 'Vestuário e acessórios de malha para bebês, de algodão'],
  ['61124100', 'Maiôs e biquínis de malha de fibras sintéticas, femininos'],
  ['61159500', 'Meias de malha de algodão'],
  ['61159600', 'Meias de malha de fibras sintéticas'],

  // 62 — Vestuário e seus acessórios, exceto de malha
  ['62034200', 'Calças, bermudas e shorts de algodão, masculinos'],
  ['62034300', 'Calças, bermudas e shorts de fibras sintéticas, masculinos'],
  ['62044200', 'Vestidos de algodão'],
  ['62044300', 'Vestidos de fibras sintéticas'],
  ['62046200', 'Calças, bermudas e shorts de algodão, femininos'],
  ['62046300', 'Calças, bermudas e shorts de fibras sintéticas, femininos'],
  ['62052000', 'Camisas de algodão, masculinas'],
  ['62053000', 'Camisas de fibras sintéticas ou artificiais, masculinas'],
  ['62063000', 'Camisas e blusas de algodão, femininas'],
  ['62064000', 'Camisas e blusas de fibras sintéticas ou artificiais, femininas'],
  ['62121000', 'Sutiãs e bustiês'],

  // 64 — Calçados
  ['64021900', 'Outros calçados para esporte, de borracha ou plástico'],
  ['64022000', 'Calçados de borracha ou plástico com tiras fixadas à sola por pregos (chinelos)'],
  ['64029990', 'Outros calçados de borracha ou plástico'],
  ['64031900', 'Calçados para esporte com parte superior de couro'],
  ['64039990', 'Outros calçados com parte superior de couro'],
  ['64041100', 'Calçados para esporte (tênis) com parte superior têxtil e sola de borracha ou plástico'],
  ['64041900', 'Outros calçados com parte superior têxtil e sola de borracha ou plástico'],
  ['64042000', 'Calçados com parte superior têxtil e sola de couro'],
  ['64052000', 'Outros calçados com parte superior de matérias têxteis'],
  ['64059000', 'Outros calçados'],
  ['64062000', 'Solas exteriores e saltos, de borracha ou de plástico'],

  // 82, 83 — Ferramentas, cutelaria e obras diversas de metais comuns
  ['82075011', 'Brocas helicoidais de diâmetro até 52 mm'],
  ['82119100', 'Facas de mesa, de lâmina fixa'],
  ['82119210', 'Facas para cozinha e açougue, de lâmina fixa'],
  ['82130000', 'Tesouras e suas lâminas'],
  ['82159910', 'Colheres, garfos e artigos semelhantes, de aço inoxidável'],
  ['83011000', 'Cadeados de metais comuns'],

  // 84 — Máquinas, aparelhos e instrumentos mecânicos
  ['84145110', 'Ventiladores de mesa, de pé, de parede ou de teto, com motor de até 125 W'],
  ['84145190', 'Outros ventiladores com motor elétrico de até 125 W'],
  ['84146000', 'Coifas com dimensão horizontal máxima de até 120 cm'],
  ['84151011', 'Ar condicionado do tipo split-system, até 30.000 frigorias/hora'],
  ['84151019', 'Outros aparelhos de ar condicionado do tipo split-system'],
  ['84151090', 'Outros aparelhos de ar condicionado de parede ou de janela'],
  ['84181000', 'Combinações de refrigeradores e congeladores com portas exteriores separadas'],
  ['84182100', 'Refrigeradores do tipo doméstico, de compressão'],
  ['84182900', 'Outros refrigeradores do tipo doméstico'],
  ['84183000', 'Congeladores (freezers) horizontais tipo arca'],
  ['84184000', 'Congeladores (freezers) verticais tipo armário'],
  ['84212100', 'Aparelhos para filtrar ou depurar água'],
  ['84212300', 'Filtros de óleo para motores de ignição por centelha ou por compressão'],
  ['84213100', 'Filtros de entrada de ar para motores de ignição por centelha ou por compressão'],
  ['84221100', 'Máquinas de lavar louça, do tipo doméstico'],
  ['84501100', 'Máquinas de lavar roupa inteiramente automáticas, de até 10 kg'],
  ['84501200', 'Outras máquinas de lavar roupa de até 10 kg, com secador centrífugo'],
  ['84501900', 'Outras máquinas de lavar roupa de até 10 kg'],
  ['84512100', 'Máquinas de secar roupa de até 10 kg'],
  ['84713012', 'Computadores portáteis (notebooks) com tela de 140 cm² a 560 cm²'],
  ['84713019', 'Outras máquinas portáteis para processamento de dados, de até 3,5 kg'],
  ['84713090', 'Outras máquinas portáteis para processamento de dados'],
  ['84714900', 'Outras máquinas para processamento de dados, apresentadas sob a forma de sistemas'],
  ['84715010', 'Unidades de processamento digitais de pequena capacidade'],
  ['84716052', 'Teclados'],
  ['84716053', 'Mouses e outros indicadores ou apontadores'],
  ['84718000', 'Outras unidades de máquinas automáticas para processamento de dados'],
  ['84811000', 'Válvulas redutoras de pressão'],

  // 85 — Máquinas, aparelhos e materiais elétricos
  ['85011019', 'Motores elétricos de corrente contínua de até 37,5 W'],
  ['85014019', 'Motores monofásicos de corrente alternada de até 15 kW'],
  ['85015210', 'Motores trifásicos com rotor de gaiola, de 750 W a 75 kW'],
  ['85044010', 'Carregadores de acumuladores'],
  ['85076000', 'Acumuladores (baterias) de íons de lítio'],
  ['85081100', 'Aspiradores de pó de até 1.500 W, com reservatório de até 20 l'],
  ['85094010', 'Liquidificadores'],
  ['85101000', 'Aparelhos de barbear elétricos'],
  ['85102000', 'Máquinas de cortar o cabelo ou de tosquiar, elétricas'],
  ['85103000', 'Aparelhos de depilar elétricos'],
  ['85161000', 'Aquecedores elétricos de água, incluindo chuveiros elétricos'],
  ['85162900', 'Outros aparelhos elétricos para aquecimento de ambientes'],
  ['85163100', 'Secadores de cabelo'],
  ['85163200', 'Outros aparelhos para arranjos do cabelo (chapinhas, modeladores)'],
  ['85164000', 'Ferros elétricos de passar'],
  ['85165000', 'Fornos de micro-ondas'],
  ['85166000', 'Outros fornos; fogões, fogareiros, grelhas e assadeiras, elétricos'],
  ['85167100', 'Aparelhos para preparação de café ou de chá (cafeteiras elétricas)'],
  ['85167200', 'Torradeiras de pão'],
  ['85167910', 'Panelas elétricas'],
  ['85167920', 'Fritadoras elétricas'],
  ['85167990', 'Outros aparelhos eletrotérmicos de uso doméstico'],
  ['85171100', 'Aparelhos telefônicos por fio com unidade auscultador-microfone sem fio'],
  ['85171231', 'Telefones celulares portáteis', '2022-04-01'],
  ['85171300', 'Telefones inteligentes (smartphones)'],
  ['85171431', 'Outros telefones portáteis para redes celulares'],
  ['85176234', 'Aparelhos para comutação de pacotes de dados (switches)'],
  ['85176241', 'Roteadores digitais com capacidade de conexão sem fio'],
  ['85176249', 'Outros roteadores digitais'],
  ['85182100', 'Alto-falante único montado no seu receptáculo'],
  ['85182200', 'Alto-falantes múltiplos montados no mesmo receptáculo'],
  ['85183000', 'Fones de ouvido, mesmo combinados com microfone'],
  ['85185000', 'Aparelhos elétricos de amplificação de som'],
  ['85287200', 'Aparelhos receptores de televisão, em cores'],
  ['85395200', 'Lâmpadas e tubos de diodos emissores de luz (LED)'],
  ['85414032', 'Células solares em módulos ou painéis', '2022-04-01'],
  ['85444200', 'Condutores elétricos para tensão até 1.000 V, com peças de conexão'],

  // 87 — Veículos automóveis, tratores, ciclos e suas partes
  ['87032100', 'Automóveis com motor de ignição por centelha, de cilindrada até 1.000 cm³'],
  ['87081000', 'Para-choques e suas partes'],
  ['87082100', 'Cintos de segurança'],
  ['87082999', 'Outras partes e acessórios de carroçarias'],
  ['87083090', 'Outros freios e servo-freios e suas partes'],
  ['87088000', 'Sistemas de suspensão e suas partes (incluindo amortecedores)'],
  ['87089100', 'Radiadores e suas partes'],
  ['87089200', 'Silenciosos e tubos de escape, e suas partes'],
  ['87089300', 'Embreagens e suas partes'],
  ['87089990', 'Outras partes e acessórios de veículos automóveis'],
  ['87111000', 'Motocicletas com motor de pistão de cilindrada até 50 cm³'],
  ['87116000', 'Motocicletas e ciclos com motor elétrico para propulsão'],
  ['87120010', 'Bicicletas'],
  ['87120090', 'Outros ciclos, sem motor'],
  ['87150000', 'Carrinhos e veículos semelhantes para transporte de crianças'],

  // 94 — Móveis; colchões; luminárias
  ['94016100', 'Assentos estofados, com armação de madeira'],
  ['94016900', 'Outros assentos com armação de madeira'],
  ['94017100', 'Assentos estofados, com armação de metal'],
  ['94017900', 'Outros assentos com armação de metal'],
  ['94018000', 'Outros assentos'],
  ['94031000', 'Móveis de metal do tipo utilizado em escritórios'],
  ['94032000', 'Outros móveis de metal', '2022-09-01'],
  ['94032010', 'Móveis de metal do tipo utilizado em cozinhas'],
  ['94032090', 'Outros móveis de metal'],
  ['94033000', 'Móveis de madeira do tipo utilizado em escritórios'],
  ['94034000', 'Móveis de madeira do tipo utilizado em cozinhas'],
  ['94035000', 'Móveis de madeira do tipo utilizado em quartos de dormir'],
  ['94036000', 'Outros móveis de madeira'],
  ['94037000', 'Móveis de plástico'],
  ['94038900', 'Móveis de outras matérias'],
  ['94042100', 'Colchões de borracha alveolar ou de plástico alveolar'],
  ['94042900', 'Colchões de outras matérias'],
  ['94044000', 'Colchas, edredões e artigos semelhantes'],
  ['94049000', 'Travesseiros, almofadas e outros artigos de cama'],
  ['94051190', 'Lustres e luminárias de teto ou parede, somente para LED'],
  ['94052100', 'Abajures e luminárias de mesa ou de pé, somente para LED'],
  ['94054090', 'Outros aparelhos elétricos de iluminação', '2022-04-01'],
  ['94054200', 'Outras luminárias elétricas, somente para LED'],
  ['94055000', 'Luminárias e aparelhos de iluminação não elétricos'],

  // 97 — Objetos de arte
  ['97011000', 'Quadros, pinturas e desenhos feitos inteiramente à mão', '2022-04-01'],
];

export const NCM_TABLE: readonly NcmEntry[] = ROWS.map(([codigo, descricao, extintaDesde]) => ({
  codigo,
  descricao,
  extinta: extintaDesde !== undefined,
  extintaDesde: extintaDesde ?? null,
  obrigatorios: requiredAttributesFor(codigo),
}));
